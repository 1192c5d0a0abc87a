/**
 * Concurrency: 16 `add` / `remove` / `trust` / `untrust` commands started at once end in
 * exactly the registry a serial run of the same commands produces; no entry is lost.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli, tempDir } from "../../helpers/cli.ts";
import { createRepo, multiSkillFiles, type Repo } from "../../fixtures/git_repos.ts";
import { SKIP_SLOW } from "../../helpers/quick.ts";

const EXISTING = Array.from({ length: 8 }, (_, i) => `old-${i}`);
const NEW = Array.from({ length: 8 }, (_, i) => `new-${i}`);

function commands(repo: Repo): string[][] {
  return [
    ...NEW.map((name) => ["add", repo.url, "--skill", name, "--yes"]),
    ...EXISTING.slice(0, 4).map((name) => ["remove", name, "--yes"]),
    ...EXISTING.slice(4, 6).map((name) => ["untrust", name]),
    ...EXISTING.slice(6, 8).map((name) => ["trust", name, "--yes"]),
  ];
}

async function prepare(root: string, repo: Repo): Promise<string> {
  const home = join(root, `home-${crypto.randomUUID().slice(0, 6)}`);
  const env = { SKILLS_HOME: home, GIT_CONFIG_GLOBAL: "/dev/null" };
  const add = await runCli(["add", repo.url, "--skill", "*", "--yes"], { env, cwd: root });
  assert.equal(add.code, 0, add.stderr);
  // Remove what the commands will add, and untrust what they will trust.
  for (const name of NEW) {
    assert.equal((await runCli(["remove", name, "--yes"], { env, cwd: root })).code, 0);
  }
  for (const name of EXISTING.slice(6)) {
    assert.equal((await runCli(["untrust", name], { env, cwd: root })).code, 0);
  }
  return home;
}

/** The registry minus what legitimately differs between runs (times, install order). */
async function outcome(home: string) {
  const registry = JSON.parse(await Deno.readTextFile(join(home, "registry.json")));
  return registry.skills.map((e: Record<string, unknown>) => ({
    name: e.name_canonical,
    commit: e.commit_sha,
    trusted: e.trusted,
    digest: e.trusted_digest === null ? null : "set",
    path: String(e.installed_path).slice(home.length),
  }));
}

Deno.test("16 concurrent add/remove/trust/untrust commands end in the serial outcome", {
  ignore: SKIP_SLOW,
}, async () => {
  await using dir = await tempDir();
  const repo = await createRepo(dir.path, "repo", multiSkillFiles([...EXISTING, ...NEW]));

  // The serial run and the preparation of the concurrent one's home (two homes, one
  // upstream only read) proceed side by side; the 16 concurrent commands start after both.
  const serialRun = async () => {
    const home = await prepare(dir.path, repo);
    for (const args of commands(repo)) {
      const result = await runCli(args, {
        env: { SKILLS_HOME: home, GIT_CONFIG_GLOBAL: "/dev/null" },
        cwd: dir.path,
      });
      assert.equal(result.code, 0, `${args.join(" ")}: ${result.stderr}`);
    }
    return home;
  };
  const [serialHome, parallelHome] = await Promise.all([serialRun(), prepare(dir.path, repo)]);
  const results = await Promise.all(
    commands(repo).map((args) =>
      runCli(args, {
        env: { SKILLS_HOME: parallelHome, GIT_CONFIG_GLOBAL: "/dev/null" },
        cwd: dir.path,
      })
    ),
  );
  for (const [i, result] of results.entries()) {
    assert.equal(result.code, 0, `${commands(repo)[i]!.join(" ")}: ${result.stderr}`);
  }

  const serial = await outcome(serialHome);
  assert.deepEqual(await outcome(parallelHome), serial);
  assert.deepEqual(serial.map((e: { name: string }) => e.name), [...NEW, ...EXISTING.slice(4)]);
  const check = JSON.parse(
    (await runCli(["check", "--json"], { env: { SKILLS_HOME: parallelHome } })).stdout,
  );
  assert.deepEqual(check.consistency, { missing: [], orphans: [], leftovers: [] });
});
