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
  // Listings kept by runs from two folders, one of them gone since (and one torn).
  await using work = await tempDir();
  const [gone, kept] = await keptListings(home, env, work.path);
  const check = await runCli(["check", "--json"], { env });
  const unused: string[] = JSON.parse(check.stdout).unused;
  assert.deepEqual(unused, [
    join(home, ".cache", "audit-long-removed.json"),
    join(home, ".cache", "core", "0.0.1-0123456789abcdef"),
    join(home, ".cache", "core", "parent-watch-0000000000000000"),
    join(home, ".cache", "digest-long-removed.json"),
    ...gone,
    join(home, ".core"),
    join(home, "registry.json.bak"),
  ]);
  const text = await runCli(["check"], { env });
  assert.match(
    text.stdout,
    /○ 8 unused file\(s\) from other versions, removed skills or folders gone/,
  );

  const repair = await runCli(["check", "--repair"], { env });
  assert.equal(repair.code, 0, repair.stdout + repair.stderr);
  assert.match(repair.stdout, /8 unused files removed/);
  assert.ok(await Deno.lstat(kept), "the listing of a folder still there is kept");
  for (const path of [...planted, ...gone]) {
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

/**
 * Runs a script in policy mode from two folders in `parent`, so each keeps its listings, then
 * removes the first folder and tears a third listing: the paths of the two unused ones, and the
 * live one.
 */
async function keptListings(
  home: string,
  env: Record<string, string>,
  parent: string,
): Promise<[gone: string[], kept: string]> {
  const store = join(home, ".cache", "policy-listings");
  const filesIn = async () =>
    new Set((await Array.fromAsync(Deno.readDir(store))).map((e) => join(store, e.name)));
  const runFrom = async (cwd: string) => {
    const run = await runCli(["run", "runner-lab", "echo_args", "--json"], {
      env: { ...env, SKILLS_SANDBOX: "off" },
      cwd,
    });
    assert.equal(run.code, 0, run.stderr);
  };
  const [folder, live] = [join(parent, "gone"), join(parent, "live")];
  for (const made of [folder, live]) await Deno.mkdir(made);
  await runFrom(folder);
  const first = await filesIn();
  await runFrom(live);
  const kept = [...await filesIn()].find((file) => !first.has(file))!;
  await Deno.remove(folder, { recursive: true });
  const torn = join(store, "0badc0de-9.json");
  await Deno.writeTextFile(torn, '{"version": 1, "dir": ');
  return [[...first, torn].sort(), kept];
}
