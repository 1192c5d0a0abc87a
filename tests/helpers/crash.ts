/**
 * Crash consistency: `skills add`, `update` and `remove` killed with SIGKILL at random
 * points, 18 runs of each (54 in all). Afterwards the registry always parses (never torn),
 * and the next command leaves a consistent home — every entry has its files, no orphans —
 * or `skills check --repair` makes it so.
 *
 * One phase a test file (tests/hardening/consistency/crash_{add,update,remove}_test.ts),
 * each with its own home and repository, so `deno test --parallel` runs the three at once
 * instead of one test three times as long. The kill points are the one deterministic
 * sequence the single test used: phase k takes draws 18·k to 18·k+17. The single test
 * asked at least 5 of its 54 kills to land mid-change (leaving staging or trash behind);
 * the phases ask it of add (at least 3) and update (at least 2), whose runs are long enough
 * for that — remove is short, and about 1 kill in 18 lands inside it. How many land depends
 * on the machine (a faster add leaves less of its time mid-change), so a phase short of its
 * minimum after 18 runs goes on, each run asserted the same way, up to 36.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { parseRegistry } from "../../src/core/records/registry.ts";
import { killAfter, runCli, spawnCli, tempDir } from "./cli.ts";
import { exists } from "./wait.ts";
import { SKIP_SLOW } from "./quick.ts";
import { createRepo, multiSkillFiles, type Repo } from "../fixtures/git_repos.ts";

export const CRASH_NAMES = Array.from({ length: 6 }, (_, i) => `crash-${i}`);

/** Kill runs of each phase (three phases: 54 runs in all). */
const RUNS_PER_PHASE = 18;

export type CrashPhase = "add" | "update" | "remove";
const PHASES: readonly CrashPhase[] = ["add", "update", "remove"];

export interface CrashWorkspace {
  home: string;
  cwd: string;
  repo: Repo;
  /** Kills that landed mid-change (they left staging or trash behind). */
  interrupted: number;
  /** The next kill point, a fraction of the operation's unkilled time (0 to 1). */
  random: () => number;
}

/** A fresh home and a six-skill repository under `root`, with the kill points of `phase`. */
async function crashWorkspace(root: string, phase: CrashPhase): Promise<CrashWorkspace> {
  const random = (() => {
    let seed = 7; // deterministic spread of kill points, different per run index
    return () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  })();
  for (let i = 0; i < PHASES.indexOf(phase) * RUNS_PER_PHASE; i++) random();
  return {
    home: join(root, "home"),
    cwd: root,
    repo: await createRepo(root, "repo", multiSkillFiles(CRASH_NAMES)),
    interrupted: 0,
    random,
  };
}

export function crashCli(ws: CrashWorkspace, args: string[]) {
  return runCli(args, {
    cwd: ws.cwd,
    env: { SKILLS_HOME: ws.home, GIT_CONFIG_GLOBAL: "/dev/null" },
  });
}

async function hasLeftovers(home: string): Promise<boolean> {
  for (const area of [".staging", ".trash"]) {
    const entries = await Array.fromAsync(Deno.readDir(join(home, area))).catch(() => []);
    if (entries.length > 0) return true;
  }
  return false;
}

/** Starts a CLI command and SIGKILLs it after `delayMs`. */
async function killDuring(
  ws: CrashWorkspace,
  args: string[],
  delayMs: number,
): Promise<void> {
  const child = spawnCli(args, {
    cwd: ws.cwd,
    env: { SKILLS_HOME: ws.home, GIT_CONFIG_GLOBAL: "/dev/null" },
    stdout: "null",
    stderr: "null",
  });
  await killAfter(child, delayMs);
  if (await hasLeftovers(ws.home)) ws.interrupted++;
}

/** The registry is whole, and after one more command the home is consistent (or repairable). */
async function assertRecovers(ws: CrashWorkspace, label: string): Promise<void> {
  const text = await Deno.readTextFile(join(ws.home, "registry.json")).catch(() => null);
  if (text !== null) {
    const parsed = parseRegistry(text);
    assert.ok(parsed.ok, `${label}: torn registry: ${parsed.ok ? "" : parsed.reason}`);
  }
  // Any mutating command first rolls back what a dead command left half-done.
  const untrust = await crashCli(ws, ["untrust", "--json", "no-such-skill"]);
  assert.equal(untrust.code, 1, `${label}: ${untrust.stderr}`);
  let check = JSON.parse((await crashCli(ws, ["check", "home", "--json"])).stdout);
  if (check.consistency.missing.length > 0 || check.consistency.orphans.length > 0) {
    check = JSON.parse((await crashCli(ws, ["check", "home", "--repair", "--json"])).stdout);
  }
  assert.deepEqual(check.consistency.missing, [], `${label}: entry without files`);
  assert.deepEqual(check.consistency.orphans, [], `${label}: files without entry`);
  const registry = JSON.parse(
    await Deno.readTextFile(join(ws.home, "registry.json")).catch(() => '{"skills":[]}'),
  );
  for (const name of CRASH_NAMES) {
    const hasEntry = registry.skills.some((s: { name_canonical: string }) =>
      s.name_canonical === name
    );
    const hasFiles = await exists(join(ws.home, name));
    assert.equal(hasEntry, hasFiles, `${label}: ${name} entry=${hasEntry} files=${hasFiles}`);
  }
}

/** Installs `name` from the workspace's repository unless a run left it installed. */
export async function ensureInstalled(ws: CrashWorkspace, name: string): Promise<void> {
  if (await exists(join(ws.home, name))) return;
  assert.equal((await crashCli(ws, ["add", ws.repo.url, "--skill", name, "--yes"])).code, 0);
}

/** Whatever survived the phase still works end to end: the home is wholly consistent. */
async function assertFinallyConsistent(ws: CrashWorkspace): Promise<void> {
  const final = JSON.parse((await crashCli(ws, ["check", "home", "--json"])).stdout);
  assert.deepEqual(final.consistency, { missing: [], orphans: [], leftovers: [] });
}

export interface CrashPhaseRun {
  phase: CrashPhase;
  /**
   * Before the command is timed unkilled on the first skill (installed first, unless the
   * phase is add): e.g. a new upstream commit for update to fetch.
   */
  beforeMeasure?: (ws: CrashWorkspace, first: string) => Promise<unknown>;
  /** Brings the home to where run `i` can start (installs, new upstream commits). */
  prepare: (ws: CrashWorkspace, name: string, i: number) => Promise<void>;
  /** The command run `i` kills. */
  command: (ws: CrashWorkspace, name: string) => string[];
  /** How many kills must land mid-change (see the header). */
  minInterrupted: number;
}

/** Declares the phase's test: SKIP_SLOW skips it in `deno task test:quick`. */
export function crashPhaseTest(run: CrashPhaseRun): void {
  Deno.test(
    `SIGKILL at random points during ${run.phase} never leaves an inconsistent home`,
    { ignore: SKIP_SLOW },
    () => runCrashPhase(run),
  );
}

/**
 * One phase: 18 runs (up to 36 while too few kills land mid-change) of prepare, kill at a
 * random point, assert the home recovers.
 */
async function runCrashPhase(run: CrashPhaseRun): Promise<void> {
  await using dir = await tempDir();
  const ws = await crashWorkspace(dir.path, run.phase);
  // How long the command takes when it is not killed, to spread kills over all of it.
  const first = CRASH_NAMES[0]!;
  if (run.phase !== "add") await crashCli(ws, ["add", ws.repo.url, "--skill", first, "--yes"]);
  await run.beforeMeasure?.(ws, first);
  const started = performance.now();
  await crashCli(ws, run.command(ws, first));
  const unkilledMs = performance.now() - started;
  let runs = 0;
  // Past the 18 runs only while too few kills have landed mid-change: where a kill lands
  // depends on the machine's speed, and a loop whose kills all missed the change proves little.
  const more = () => ws.interrupted < run.minInterrupted && runs < 2 * RUNS_PER_PHASE;
  for (let i = 0; i < RUNS_PER_PHASE || more(); i++) {
    const name = CRASH_NAMES[i % CRASH_NAMES.length]!;
    await run.prepare(ws, name, i);
    await killDuring(ws, run.command(ws, name), unkilledMs * ws.random() * 1.1);
    await assertRecovers(ws, `${run.phase} run ${i}`);
    runs++;
  }
  assert.ok(runs >= RUNS_PER_PHASE);
  console.log(`${run.phase}: ${ws.interrupted} of ${runs} kills landed mid-change`);
  assert.ok(
    ws.interrupted >= run.minInterrupted,
    `only ${ws.interrupted} kills landed mid-change`,
  );
  await assertFinallyConsistent(ws);
}
