/**
 * `$SKILLS_HOME` does not collect clutter: read-only commands write only under `.cache/`,
 * and `skills check --repair` prunes what no current version uses (other versions'
 * materialised skills and helpers, digest caches of removed skills, the registry backup,
 * the pre-0.2 `.core` directory).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { installRunnerSkill } from "../../helpers/install_fixture.ts";
import { runCli, tempDir } from "../../helpers/cli.ts";

async function walk(dir: string, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const rel = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    out.push(rel);
    if (entry.isDirectory) out.push(...await walk(join(dir, entry.name), rel));
  }
  return out;
}

Deno.test("read-only commands write nothing outside $SKILLS_HOME/.cache", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  const env = { SKILLS_HOME: home, AGENT_SKILLS: "all" };
  for (
    const args of [
      ["list"],
      ["list", "--json"],
      ["info", "kalshi-markets"],
      ["scripts", "hello-extended"],
      ["prompt"],
      ["check"],
      ["run", "hello-extended", "advanced_greeting", "--name", "Ada", "--json"],
    ]
  ) {
    const result = await runCli(args, { env });
    assert.equal(result.code, 0, `${args.join(" ")}: ${result.stderr}`);
  }
  const written = await walk(home);
  assert.ok(written.length > 0, "the bundled skills were materialised");
  assert.deepEqual(written.filter((p) => p !== ".cache" && !p.startsWith(".cache/")), []);
});

Deno.test("skills check reports unused files and --repair removes them, keeping what runs", async () => {
  await using dir = await tempDir();
  const home = dir.path;
  const env = { SKILLS_HOME: home };
  await installRunnerSkill(home, "runner-lab");
  assert.equal((await runCli(["list"], { env })).code, 0); // materialises the current version
  const planted = [
    join(home, ".core", "0.0.9-0123456789abcdef", "kalshi-markets", "SKILL.md"),
    join(home, ".cache", "core", "0.0.1-0123456789abcdef", "hello-extended", "SKILL.md"),
    join(home, ".cache", "core", "parent-watch-0000000000000000", "sitecustomize.py"),
    join(home, ".cache", "digest-long-removed.json"),
    join(home, ".cache", "audit-long-removed.json"),
    join(home, "registry.json.bak"),
  ];
  for (const path of planted) {
    await Deno.mkdir(join(path, ".."), { recursive: true });
    await Deno.writeTextFile(path, "old\n");
  }
  const check = await runCli(["check", "--json"], { env });
  const unused: string[] = JSON.parse(check.stdout).unused;
  assert.deepEqual(unused, [
    join(home, ".cache", "audit-long-removed.json"),
    join(home, ".cache", "core", "0.0.1-0123456789abcdef"),
    join(home, ".cache", "core", "parent-watch-0000000000000000"),
    join(home, ".cache", "digest-long-removed.json"),
    join(home, ".core"),
    join(home, "registry.json.bak"),
  ]);
  const text = await runCli(["check"], { env });
  assert.match(text.stdout, /○ 6 unused file\(s\) from other versions or removed skills/);

  const repair = await runCli(["check", "--repair"], { env });
  assert.equal(repair.code, 0, repair.stdout + repair.stderr);
  assert.match(repair.stdout, /6 unused files removed/);
  for (const path of planted) {
    assert.equal(await Deno.lstat(path).catch(() => null), null, `${path} removed`);
  }
  const after = JSON.parse((await runCli(["check", "--json"], { env })).stdout);
  assert.deepEqual(after.unused, []);
  assert.equal(after.healthy, true);
  const run = await runCli(["run", "runner-lab", "echo_args", "--json"], { env });
  assert.equal(run.code, 0, "the installed skill still runs (its digest cache was kept)");
  const bundled = await runCli(["run", "hello-extended", "advanced_greeting", "--name", "A"], {
    env,
  });
  assert.equal(bundled.code, 0, bundled.stderr);
});
