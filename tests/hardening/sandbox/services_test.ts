/**
 * Services (`skills run --background`) kept within their bounds: from the host a service is
 * reachable only at the loopback ports relayed for it, nothing of it survives `skills stop`,
 * withdrawing trust ends it, and a state whose process is gone — dead, or a reboot ago —
 * never reads as running.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { alive, deadPid, descendants, survivors } from "../../helpers/processes.ts";
import {
  accepts,
  COMPANION,
  COMPANION_LIVE,
  freePort,
  needsServices,
  type ServiceFixture,
  serviceTest,
} from "../../helpers/services.ts";
import { installFixtureSkill, RUNNER_SKILLS } from "../../helpers/install_fixture.ts";
import { userLab } from "../../helpers/unprivileged.ts";
import { runCli } from "../../helpers/cli.ts";

/** The pids of the fixture's one service: its supervisor first, then all it started. */
async function serviceTree(fx: ServiceFixture): Promise<number[]> {
  const [service] = await fx.services();
  return [service!.pid as number, ...descendants(service!.pid)];
}

/**
 * Starts the companion and untrusts companion-lab: its service has ended, with no process of
 * it left and its relayed port closed.
 */
async function untrustEndsTheService(fx: ServiceFixture): Promise<void> {
  const started = await fx.startCompanion();
  const tree = await serviceTree(fx);
  const untrust = await fx.cli(["untrust", "companion-lab"]);
  assert.equal(untrust.code, 0, untrust.stderr);
  const [after] = await fx.services();
  assert.equal(after!.status, "ended");
  assert.deepEqual(await survivors(tree, 5_000), []);
  assert.equal(await accepts(started.ports[0]!.host), false);
}

/** The session id in a /proc/<pid>/stat line. */
function sessionOf(stat: string): string {
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[3]!;
}

/** Inodes of the sockets `pid` holds open. */
function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  try {
    for (const fd of Deno.readDirSync(`/proc/${pid}/fd`)) {
      try {
        const target = Deno.readLinkSync(`/proc/${pid}/fd/${fd.name}`);
        const match = /^socket:\[(\d+)\]$/.exec(target);
        if (match) inodes.add(match[1]!);
      } catch { /* closed meanwhile */ }
    }
  } catch { /* gone */ }
  return inodes;
}

/** `address:port` of each socket of this (the host's) network table owned by `inodes`. */
function hostSockets(table: string, inodes: Set<string>, listeningOnly: boolean): string[] {
  const found: string[] = [];
  for (const row of Deno.readTextFileSync(table).split("\n").slice(1)) {
    const fields = row.trim().split(/\s+/);
    if (fields.length < 10 || !inodes.has(fields[9]!)) continue;
    if (listeningOnly && fields[3] !== "0A") continue;
    const [address, port] = fields[1]!.split(":");
    const ip = address!.length === 8
      ? [6, 4, 2, 0].map((i) => parseInt(address!.slice(i, i + 2), 16)).join(".")
      : address!;
    found.push(`${ip}:${parseInt(port!, 16)}`);
  }
  return found;
}

serviceTest(
  "a service is reachable from the host only at its relayed loopback ports",
  async (fx) => {
    const udp = freePort();
    const started = await fx.startCompanion([], ["--extra-udp-port", String(udp)]);
    const tree = await serviceTree(fx);
    const inodes = new Set(tree.flatMap((pid) => [...socketInodes(pid)]));
    // Every socket of the service's processes that listens in the host's network: 127.0.0.1 at
    // a relayed port, nothing else (no other port, no other address, no UDP).
    const relayed = started.ports.map((port) => `127.0.0.1:${port.host}`);
    const listening = [
      ...hostSockets("/proc/net/tcp", inodes, true),
      ...hostSockets("/proc/net/tcp6", inodes, true),
    ];
    assert.deepEqual(listening.sort(), relayed.sort());
    assert.deepEqual(
      [
        ...hostSockets("/proc/net/udp", inodes, false),
        ...hostSockets("/proc/net/udp6", inodes, false),
      ],
      [],
    );
    assert.equal(started.ports.length, 1, "the UDP socket inside is not relayed");
    assert.equal(await accepts(udp), false);
  },
);

serviceTest(
  "skills stop leaves no process of the service: its supervisor, sandbox and script end",
  async (fx) => {
    const started = await fx.startCompanion();
    const tree = await serviceTree(fx);
    const supervisor = tree[0]!;
    // The supervisor holds bubblewrap, which holds the sandbox's init and the script.
    assert.ok(tree.length >= 3, `processes: ${tree.join(", ")}`);
    const supervisorStat = Deno.readTextFileSync(`/proc/${supervisor}/stat`);
    const stop = await fx.cli(["stop", started.id]);
    assert.equal(stop.code, 0, stop.stderr);
    assert.deepEqual(await survivors(tree, 5_000), []);
    // Nothing else of its session either (the helper started it in a session of its own).
    const session = sessionOf(supervisorStat);
    assert.notEqual(session, sessionOf(Deno.readTextFileSync("/proc/self/stat")));
    const inSession = [...Deno.readDirSync("/proc")].filter((e) => /^\d+$/.test(e.name))
      .filter((e) => {
        try {
          const stat = Deno.readTextFileSync(`/proc/${e.name}/stat`);
          // A zombie has ended (a container's pid 1 may never reap what is reparented to it).
          const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
          return sessionOf(stat) === session && state !== "Z";
        } catch {
          return false;
        }
      });
    assert.deepEqual(inSession.map((e) => e.name), []);
    assert.equal(await accepts(started.ports[0]!.host), false);
  },
);

serviceTest("untrusting a skill ends its services: none outlives its trust", async (fx) => {
  await untrustEndsTheService(fx);
  // And it cannot be started again until trusted again.
  const again = await fx.cli(["run", "--background", ...COMPANION]);
  assert.notEqual(again.code, 0);
  assert.match(again.stderr, /trust/i);
});

serviceTest(
  "untrusting a project skill ends its services: none outlives its trust in the project",
  async (fx) => {
    // The same skill as the workspace's own project skill (it wins over the installed one).
    const projectCopy = join(fx.workspace, ".agents", "skills", "companion-lab");
    await Deno.mkdir(join(fx.workspace, ".git"));
    await Deno.mkdir(join(fx.workspace, ".agents", "skills"), { recursive: true });
    const copied = await new Deno.Command("cp", {
      args: ["-r", join(RUNNER_SKILLS, "companion-lab"), projectCopy],
    }).output();
    assert.ok(copied.success);
    const trust = await fx.cli(["trust", "companion-lab", "--yes"]);
    assert.equal(trust.code, 0, trust.stderr);
    assert.match(trust.stdout, /project skill/);
    await untrustEndsTheService(fx);
  },
);

serviceTest(
  "a stale service state (a dead supervisor, another boot) is listed as ended, never running",
  async (fx) => {
    const boot = Deno.readTextFileSync("/proc/sys/kernel/random/boot_id").trim();
    const state = (id: string, bootId: string, pid: number) => ({
      id,
      skill: "companion-lab",
      script: "companion",
      args: [],
      cwd: fx.workspace,
      boot_id: bootId,
      pid,
      pid_start: "1",
      started_at: new Date().toISOString(),
      status: "running",
      ports: [{ sandbox: 8080, host: 8080 }],
      live: [],
      idle_seconds: 60,
      max_seconds: 60,
      last_active_at: new Date().toISOString(),
    });
    const write = async (bootId: string, id: string, pid: number) => {
      const dir = join(fx.home, ".services", bootId, id);
      await Deno.mkdir(dir, { recursive: true });
      await Deno.writeTextFile(join(dir, "state.json"), JSON.stringify(state(id, bootId, pid)));
    };
    const dead = await deadPid();
    assert.equal(alive(dead), false);
    await write(boot, "deadpid001", dead);
    // A pid alive now (this test's own), but of another boot: a reboot ago.
    await write("00000000-0000-0000-0000-000000000000", "oldboot001", Deno.pid);
    // And this boot's live pid with another start time: the pid was reused.
    await write(boot, "reused0001", Deno.pid);

    const ps = await fx.cli(["ps", "--json"]);
    assert.equal(ps.code, 0, ps.stderr);
    assert.deepEqual(JSON.parse(ps.stdout).services, []);
    const all = Object.fromEntries((await fx.services()).map((s) => [s.id, s]));
    for (const id of ["deadpid001", "oldboot001", "reused0001"]) {
      assert.equal(all[id]?.status, "ended", id);
      assert.deepEqual(all[id]?.urls, [], id);
    }
    assert.equal(all.oldboot001!.end_reason, "the machine restarted since");
    assert.equal(all.deadpid001!.end_reason, "its supervisor is gone (killed or crashed)");
    const stop = await fx.cli(["stop", "reused0001"]);
    assert.equal(stop.code, 0, stop.stderr);
    assert.match(stop.stdout, /had ended already/);
    assert.ok(alive(Deno.pid), "the reused pid was not signalled");
  },
);

Deno.test({
  name:
    "as an ordinary user (fuse-overlayfs) a service's --write folder is live and its other writes wait for the stop",
  ...needsServices,
  ignore: needsServices.ignore || Deno.uid() !== 0, // the lab drops from root to a user
  fn: async () => {
    await using lab = await userLab();
    await installFixtureSkill(lab.skillsHome, join(RUNNER_SKILLS, "companion-lab"));
    await Deno.mkdir(join(lab.cwd, ".companion"));
    await lab.give(lab.home);
    await lab.give(lab.cwd);
    const run = (args: string[]) => lab.run(args, { fuse: true });
    const started = await run(["run", "--background", "--json", ...COMPANION_LIVE, ...COMPANION]);
    assert.equal(started.code, 0, started.stderr);
    const service = JSON.parse(started.stdout);
    const info = JSON.parse(service.output.split("\n")[0]);
    try {
      await Deno.writeTextFile(join(info.screen_dir, "a.html"), "<p>from the agent</p>");
      assert.match(await (await fetch(service.urls[0])).text(), /from the agent/);
      const click = await fetch(`${service.urls[0]}click`, { method: "POST", body: "{}" });
      await click.body?.cancel();
      assert.match(await Deno.readTextFile(join(info.state_dir, "events")), /"click"/);
      await assert.rejects(Deno.lstat(join(lab.cwd, "companion.log")), Deno.errors.NotFound);
    } finally {
      const stop = await run(["stop", service.id]);
      assert.equal(stop.code, 0, stop.stderr);
    }
    assert.match(await Deno.readTextFile(join(lab.cwd, "companion.log")), /POST \/click/);
    assert.equal(await accepts(service.ports[0].host), false);
  },
});

serviceTest("without the OS sandbox a service is refused, never started unconfined", async (fx) => {
  const result = await runCli(
    ["run", "--background", ...COMPANION],
    { env: { ...fx.env, SKILLS_SANDBOX: "off" }, cwd: fx.workspace },
  );
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stderr, /services run only inside the sandbox/);
  assert.deepEqual((await fx.services()).filter((s) => s.status === "running"), []);
});

serviceTest(
  "a link the service plants in its relay folder never makes the host connect to a host socket",
  async (fx) => {
    // A host socket standing in for a container daemon's: it must never be reached.
    const daemon = join(fx.home, "daemon.sock");
    const listener = Deno.listen({ transport: "unix", path: daemon });
    let reached = 0;
    const accepting = (async () => {
      for await (const conn of listener) {
        reached++;
        conn.close();
      }
    })();
    const planted = freePort();
    const started = await fx.startCompanion([], ["--plant-link", `${planted}:${daemon}`]);
    assert.equal((started.info as { planted?: string[] }).planted?.length, 1, "planted");
    // Clients on that port (the same number: it was free) while the service swaps its own
    // socket for the link: none may reach the host's daemon.
    let connected = 0;
    const until = Date.now() + 3_000;
    while (Date.now() < until) {
      try {
        const conn = await Deno.connect({ hostname: "127.0.0.1", port: planted });
        connected++;
        await conn.write(new TextEncoder().encode("GET / HTTP/1.0\r\n\r\n")).catch(() => 0);
        conn.close();
      } catch { /* not relayed (yet, or any more) */ }
      await new Promise((resolve) => setTimeout(resolve, 15));
    }
    assert.ok(connected > 0, "the service's own socket was relayed at first");
    assert.equal(reached, 0, "the host connected to its own daemon's socket");
    listener.close();
    await accepting.catch(() => {});
  },
);
