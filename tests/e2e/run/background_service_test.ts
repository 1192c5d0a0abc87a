/**
 * `skills run --background` end to end, on companion-lab (a page server in the layout of a
 * brainstorming companion): the real CLI starts it in the real sandbox, a host HTTP client
 * reaches it at the URL the run printed, the agent's screen and the user's clicks pass through
 * the live `--write` folder, `ps` lists it, `stop` ends it and its port, what it wrote elsewhere
 * is applied as a diff when it stops; its idle timeout, its lifetime and the removal of its
 * skill end it.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  accepts,
  COMPANION,
  COMPANION_LIVE,
  freePort,
  serviceTest,
} from "../../helpers/services.ts";
import { exists, waitFor } from "../../helpers/wait.ts";
import { connectStdio, envelopeOf } from "../../helpers/mcp_client.ts";
import { RUNNER_SKILLS } from "../../helpers/install_fixture.ts";

serviceTest(
  "run --background serves the companion on the host: the agent's screen shows, a click reaches the next run, ps lists it, stop ends it",
  async (fx) => {
    const port = freePort();
    // Text mode: what the script printed, then the URL on the host.
    const run = await fx.cli([
      "run",
      "--background",
      ...COMPANION_LIVE,
      ...COMPANION,
      "--port",
      String(port),
    ]);
    assert.equal(run.code, 0, run.stderr);
    const url = `http://127.0.0.1:${port}/`;
    assert.match(run.stdout, /"type": "server-started"/);
    assert.ok(run.stdout.includes(`  ${url}\n`), run.stdout); // the same port: it was free
    const id = /^service (\w+) running: companion-lab companion$/m.exec(run.stdout)?.[1];
    assert.ok(id, run.stdout);
    const info = JSON.parse(run.stdout.split("\n")[0]!);

    // A host client reaches it; the agent's screen (written on the host) is what it serves.
    assert.match(await (await fetch(url)).text(), /Waiting for a screen/);
    await Deno.writeTextFile(
      join(info.screen_dir, "pick.html"),
      '<h1>Which layout?</h1><button data-choice="grid">Grid</button>',
    );
    const page = await (await fetch(url)).text();
    assert.match(page, /Which layout\?/);
    assert.match(page, /data-choice="grid"/);

    // The user's click: the service writes the event into its live folder, seen at once on the
    // host and by the next `skills run` of the skill.
    const click = await fetch(`${url}click`, {
      method: "POST",
      body: JSON.stringify({ choice: "grid" }),
    });
    assert.equal(click.status, 200);
    await click.body?.cancel();
    const next = await fx.cli(["run", "companion-lab", "events", "--state-dir", info.state_dir]);
    assert.equal(next.code, 0, next.stderr);
    assert.deepEqual(JSON.parse(next.stdout).map((e: { choice: string }) => e.choice), ["grid"]);

    // What it writes outside its --write folder waits for its diff.
    assert.equal(await exists(join(fx.workspace, "companion.log")), false);

    const ps = await fx.cli(["ps"]);
    assert.equal(ps.code, 0, ps.stderr);
    assert.match(ps.stdout, new RegExp(`^${id}  companion-lab companion  running`, "m"));
    assert.ok(ps.stdout.includes(url), ps.stdout);
    const listed = JSON.parse((await fx.cli(["ps", "--json"])).stdout).services;
    assert.equal(listed.length, 1);
    assert.equal(listed[0].id, id);
    assert.equal(listed[0].status, "running");
    assert.deepEqual(listed[0].urls, [url]);
    assert.deepEqual(listed[0].live, [join(Deno.realPathSync(fx.workspace), ".companion")]);
    // The receipt so far: what it wrote outside its live folder, waiting for the stop.
    assert.deepEqual(listed[0].pending.paths, ["companion.log"]);
    assert.match(ps.stdout, /written so far, applied when it stops: companion\.log/);

    const logs = await fx.cli(["logs", id]);
    assert.match(logs.stdout, /server-started/);

    const stop = await fx.cli(["stop", id]);
    assert.equal(stop.code, 0, stop.stderr);
    assert.match(stop.stdout, new RegExp(`^Stopped ${id}`, "m"));
    assert.equal(await accepts(port), false, "the port closed");
    // Its diff applied when it stopped: the requests it noted.
    assert.match(await Deno.readTextFile(join(fx.workspace, "companion.log")), /POST \/click/);
    const [ended] = await fx.services();
    assert.equal(ended!.status, "ended");
    assert.equal(ended!.end_reason, "stopped");
    assert.deepEqual(ended!.receipt.files.created, ["companion.log"]);
    assert.equal((await fx.cli(["ps"])).stdout, "");
  },
);

serviceTest(
  "a service that stays idle past --idle-timeout ends, and its port closes",
  async (fx) => {
    const started = await fx.startCompanion(["--idle-timeout", "3"]);
    const port = started.ports[0]!.host;
    assert.equal(await accepts(port), true);
    const ended = await waitFor(async () => {
      const [service] = await fx.services();
      return service?.status === "ended" ? service : undefined;
    }, { what: "the idle service to end", timeoutMs: 25_000, intervalMs: 300 });
    assert.equal(ended.end_reason, "idle timeout");
    assert.equal(await accepts(port), false);
  },
);

serviceTest("a service busy past --max-lifetime ends at its lifetime", async (fx) => {
  const started = await fx.startCompanion(["--max-lifetime", "6", "--idle-timeout", "60"]);
  const ended = await waitFor(async () => {
    await (await fetch(started.urls[0]!).catch(() => undefined))?.body?.cancel();
    const [service] = await fx.services();
    return service?.status === "ended" ? service : undefined;
  }, { what: "the service to reach its lifetime", timeoutMs: 25_000, intervalMs: 300 });
  assert.equal(ended.end_reason, "lifetime reached");
  assert.equal(await accepts(started.ports[0]!.host), false);
});

serviceTest("removing a skill ends its services", async (fx) => {
  const started = await fx.startCompanion();
  const removed = await fx.cli(["remove", "companion-lab", "--yes"]);
  assert.equal(removed.code, 0, removed.stderr);
  const [service] = await fx.services();
  assert.equal(service!.id, started.id);
  assert.equal(service!.status, "ended");
  assert.equal(await accepts(started.ports[0]!.host), false);
});

serviceTest(
  "over MCP, with SKILLS_ALLOW_SERVICES=1, a host's model starts the declared companion and stops it",
  async (fx) => {
    const env = { ...fx.env, AGENT_SKILLS: "companion-lab" };
    {
      await using plain = await connectStdio(env, fx.workspace);
      const names = (await plain.client.listTools()).tools.map((t) => t.name);
      assert.ok(!names.includes("service_start"), "no grant, no service tools");
    }
    await using session = await connectStdio({ ...env, SKILLS_ALLOW_SERVICES: "1" }, fx.workspace);
    const call = async (name: string, args: Record<string, unknown>) =>
      envelopeOf(await session.client.callTool({ name, arguments: args })) as {
        success: boolean;
        // deno-lint-ignore no-explicit-any
        result?: any;
      };
    assert.ok((await call("activate_skill", { name: "companion-lab" })).success);
    const started = await call("service_start", {
      skill_name: "companion-lab",
      script_name: "companion",
      args: ["--project-dir", ".companion"],
      write: [".companion"],
    });
    assert.ok(started.success, JSON.stringify(started));
    assert.match(await (await fetch(started.result.urls[0])).text(), /Waiting for a screen/);
    assert.ok((await call("service_stop", { id: started.result.id })).success);
    assert.equal(await accepts(started.result.ports[0].host), false);
  },
);

serviceTest(
  "updating a skill ends its services: a service runs the version it started with",
  async (fx) => {
    // Installed from a folder of its own, so that the folder can change and update take it.
    const source = join(fx.home, "..", `${fx.home.split("/").pop()}-source`);
    await Deno.mkdir(join(source, "scripts"), { recursive: true });
    const fixture = join(RUNNER_SKILLS, "companion-lab");
    for (const rel of ["SKILL.md", "scripts/companion.py", "scripts/events.py"]) {
      await Deno.copyFile(join(fixture, rel), join(source, rel));
    }
    try {
      assert.equal((await fx.cli(["remove", "companion-lab", "--yes"])).code, 0);
      const added = await fx.cli(["add", source, "--yes"]);
      assert.equal(added.code, 0, added.stderr);
      const started = await fx.startCompanion();
      await Deno.writeTextFile(join(source, "notes.md"), "a new version\n");
      const updated = await fx.cli(["update", "companion-lab", "--yes"]);
      assert.equal(updated.code, 0, updated.stderr);
      assert.match(updated.stdout, /companion-lab: updated/);
      const [service] = await fx.services();
      assert.equal(service!.id, started.id);
      assert.equal(service!.status, "ended");
      assert.equal(await accepts(started.ports[0]!.host), false);
    } finally {
      await Deno.remove(source, { recursive: true });
    }
  },
);
