/**
 * Crash consistency: `skills add`, `update` and `remove` killed with SIGKILL at random
 * points (54 runs in all). Afterwards the registry always parses (never torn), and the
 * next command leaves a consistent home — every entry has its files, no orphans — or
 * `skills check --repair` makes it so.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { parseRegistry } from "../../../src/core/records/registry.ts";
import { killAfter, runCli, spawnCli, tempDir } from "../../helpers/cli.ts";
import { exists } from "../../helpers/wait.ts";
import { createRepo, multiSkillFiles, type Repo } from "../../fixtures/git_repos.ts";
import { SKIP_SLOW } from "../../helpers/quick.ts";

const NAMES = Array.from({ length: 6 }, (_, i) => `crash-${i}`);

interface Workspace {
  home: string;
  cwd: string;
  repo: Repo;
}

function cli(ws: Workspace, args: string[]) {
  return runCli(args, {
    cwd: ws.cwd,
    env: { SKILLS_HOME: ws.home, GIT_CONFIG_GLOBAL: "/dev/null" },
  });
}

let interrupted = 0; // kills that landed mid-change (they left staging or trash behind)

async function hasLeftovers(home: string): Promise<boolean> {
  for (const area of [".staging", ".trash"]) {
    const entries = await Array.fromAsync(Deno.readDir(join(home, area))).catch(() => []);
    if (entries.length > 0) return true;
  }
  return false;
}

/** Starts a CLI command and SIGKILLs it after `delayMs`. */
async function killDuring(ws: Workspace, args: string[], delayMs: number): Promise<void> {
  const child = spawnCli(args, {
    cwd: ws.cwd,
    env: { SKILLS_HOME: ws.home, GIT_CONFIG_GLOBAL: "/dev/null" },
    stdout: "null",
    stderr: "null",
  });
  await killAfter(child, delayMs);
  if (await hasLeftovers(ws.home)) interrupted++;
}

/** The registry is whole, and after one more command the home is consistent (or repairable). */
async function assertRecovers(ws: Workspace, label: string): Promise<void> {
  const text = await Deno.readTextFile(join(ws.home, "registry.json")).catch(() => null);
  if (text !== null) {
    const parsed = parseRegistry(text);
    assert.ok(parsed.ok, `${label}: torn registry: ${parsed.ok ? "" : parsed.reason}`);
  }
  // Any mutating command first rolls back what a dead command left half-done.
  const untrust = await cli(ws, ["untrust", "--json", "no-such-skill"]);
  assert.equal(untrust.code, 1, `${label}: ${untrust.stderr}`);
  let check = JSON.parse((await cli(ws, ["check", "--json"])).stdout);
  if (check.consistency.missing.length > 0 || check.consistency.orphans.length > 0) {
    check = JSON.parse((await cli(ws, ["check", "--repair", "--json"])).stdout);
  }
  assert.deepEqual(check.consistency.missing, [], `${label}: entry without files`);
  assert.deepEqual(check.consistency.orphans, [], `${label}: files without entry`);
  const registry = JSON.parse(
    await Deno.readTextFile(join(ws.home, "registry.json")).catch(() => '{"skills":[]}'),
  );
  for (const name of NAMES) {
    const hasEntry = registry.skills.some((s: { name_canonical: string }) =>
      s.name_canonical === name
    );
    const hasFiles = await exists(join(ws.home, name));
    assert.equal(hasEntry, hasFiles, `${label}: ${name} entry=${hasEntry} files=${hasFiles}`);
  }
}

/** Installs `name` from the workspace's repository unless a run left it installed. */
async function ensureInstalled(ws: Workspace, name: string): Promise<void> {
  if (await exists(join(ws.home, name))) return;
  assert.equal((await cli(ws, ["add", ws.repo.url, "--skill", name, "--yes"])).code, 0);
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

Deno.test(
  "SIGKILL at random points during add, update and remove never leaves an inconsistent home",
  { ignore: SKIP_SLOW },
  async () => {
    await using dir = await tempDir();
    const ws: Workspace = {
      home: join(dir.path, "home"),
      cwd: dir.path,
      repo: await createRepo(dir.path, "repo", multiSkillFiles(NAMES)),
    };
    const random = (() => {
      let seed = 7; // deterministic spread of kill points, different per run index
      return () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    })();

    // How long each operation takes when it is not killed, to spread kills over all of it.
    const addTime = await timed(() => cli(ws, ["add", ws.repo.url, "--skill", NAMES[0]!, "--yes"]));
    await ws.repo.commit({ [`skills/${NAMES[0]}/extra.md`]: "v2\n" });
    const updateTime = await timed(() => cli(ws, ["update", NAMES[0]!, "--yes"]));
    const removeTime = await timed(() => cli(ws, ["remove", NAMES[0]!, "--yes"]));

    let runs = 0;
    for (let i = 0; i < 18; i++) {
      const name = NAMES[i % NAMES.length]!;
      const installed = await exists(join(ws.home, name));
      if (installed) await cli(ws, ["remove", name, "--yes"]);
      await killDuring(
        ws,
        ["add", ws.repo.url, "--skill", name, "--yes"],
        addTime * random() * 1.1,
      );
      await assertRecovers(ws, `add run ${i}`);
      runs++;
    }
    for (let i = 0; i < 18; i++) {
      const name = NAMES[i % NAMES.length]!;
      await ensureInstalled(ws, name);
      await ws.repo.commit({ [`skills/${name}/notes-${i}.md`]: `update ${i}\n` });
      await killDuring(ws, ["update", name, "--yes"], updateTime * random() * 1.1);
      await assertRecovers(ws, `update run ${i}`);
      runs++;
    }
    for (let i = 0; i < 18; i++) {
      const name = NAMES[i % NAMES.length]!;
      await ensureInstalled(ws, name);
      await killDuring(ws, ["remove", name, "--yes"], removeTime * random() * 1.1);
      await assertRecovers(ws, `remove run ${i}`);
      runs++;
    }
    assert.ok(runs >= 50);
    assert.ok(interrupted >= 5, `only ${interrupted} kills landed mid-change`);
    // Whatever survived still works end to end.
    const final = JSON.parse((await cli(ws, ["check", "--json"])).stdout);
    assert.deepEqual(final.consistency, { missing: [], orphans: [], leftovers: [] });
  },
);
