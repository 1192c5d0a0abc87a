/**
 * Spawning the real CLI in end-to-end tests, with the binary's permission flags: the source
 * entry point, or the bundle SKILLS_E2E_ARTIFACT names. `deno task test` builds the bundle
 * and runs every test against it (the binary's entry, src/binary.ts, loaded as the binary
 * loads it: a few chunks instead of a hundred TypeScript modules looked up in Deno's cache,
 * ~15% of the suite's CPU); .ci/run's second step runs the e2e tests against it again from
 * an empty folder. A single test file run with plain `deno test` starts the sources.
 */

import assert from "node:assert/strict";
import { removeIfExists } from "../../src/runtime/os/fs.ts";
import { SCRATCH_VARIABLE } from "../../scripts/test_run.ts";
import { TLS_TRUST_NAMES } from "../../src/core/policy/env_policy.ts";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");

/** The runtime flags `deno compile` bakes into a binary: its permissions and V8's flags. */
export const isRuntimeFlag = (part: string) =>
  part.startsWith("--allow-") || part.startsWith("--v8-flags=");

/**
 * Exactly the runtime flags `deno task compile` bakes into dist/skills (permissions and V8
 * flags), read from that task (whose `--allow-run` list tests/architecture holds equal to the
 * script languages' table), so the tests run the CLI as the binary runs.
 */
export const CLI_FLAGS = [
  "--quiet",
  ...(JSON.parse(Deno.readTextFileSync(join(REPO_ROOT, "deno.json"))).tasks.compile
    .command as string)
    .split(/\s+/).filter(isRuntimeFlag),
];

/**
 * The bundle's flags, as docs/setup.md documents its command: the binary's, and `--no-config`.
 * The bundle imports nothing a deno.json or package.json could map, so Deno need not look for
 * one in the folder the CLI runs from (a user's project, or this repository: ~5 ms of CPU a
 * start), as the compiled binary never does. The sources need deno.json's imports.
 */
export const BUNDLE_FLAGS = [CLI_FLAGS[0]!, "--no-config", ...CLI_FLAGS.slice(1)];

/** The flags the entry {@link cliEntry} runs with: the bundle's, or the sources'. */
export function entryFlags(): string[] {
  return cliEntry().endsWith(join("src", "main.ts")) ? CLI_FLAGS : BUNDLE_FLAGS;
}

let entry: string | undefined;

/** The CLI's entry: src/main.ts, or SKILLS_E2E_ARTIFACT (absolute, or relative to the repository). */
export function cliEntry(): string {
  if (entry !== undefined) return entry;
  const artifact = Deno.env.get("SKILLS_E2E_ARTIFACT");
  if (artifact === undefined) return entry = join(REPO_ROOT, "src", "main.ts");
  entry = resolve(REPO_ROOT, artifact);
  assertBuiltFromTheseSources(entry);
  return entry;
}

/**
 * A bundle older than a file of src/ would test code that is no longer there, and pass: the
 * tests refuse it, naming the newer file (`deno task test` and `deno task bundle` rebuild it).
 */
function assertBuiltFromTheseSources(artifact: string): void {
  const built = Deno.statSync(artifact).mtime?.getTime() ?? 0;
  const walk = (dir: string): void => {
    for (const item of Deno.readDirSync(dir)) {
      const path = join(dir, item.name);
      if (item.isDirectory) walk(path);
      else if (item.isFile && (Deno.statSync(path).mtime?.getTime() ?? 0) > built) {
        throw new Error(
          `${artifact} is older than ${path}: run \`deno task bundle\` (deno task test does)`,
        );
      }
    }
  };
  walk(join(REPO_ROOT, "src"));
}

/**
 * Where the CLI runs when a test does not say: the repo, or (in CI, against the artifact)
 * an empty directory given by SKILLS_E2E_CWD, proving nothing is read from the source tree.
 */
export function defaultCwd(): string {
  return Deno.env.get("SKILLS_E2E_CWD") ?? REPO_ROOT;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** Environment for the CLI. PATH and HOME are filled in unless given; nothing else leaks in. */
  env?: Record<string, string>;
  cwd?: string;
  stdin?: string;
  signal?: AbortSignal;
}

/**
 * The machine's TLS trust, as a login shell there has it: where a proxy inspects TLS (this
 * workplace's does), its CA is trusted only through these, and a Deno the tests start that
 * must fetch a package (a fresh clone's first `deno task gen`, tests/docs/setup_install_test.ts)
 * fails with "invalid peer certificate: UnknownIssuer" without them. What scripts get
 * (core/policy/env_policy.ts), plus Deno's CA store choice and git's bundle, which the CLI
 * itself reads. Names only: each is passed on only where the machine sets it.
 */
export const TLS_TRUST_VARIABLES = [...TLS_TRUST_NAMES, "DENO_TLS_CA_STORE", "GIT_SSL_CAINFO"];

/** The base environment for a spawned CLI: only what a clean shell would have. */
export function baseEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: Deno.env.get("HOME") ?? "/tmp",
    NO_COLOR: "1",
  };
  for (const name of TLS_TRUST_VARIABLES) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  // Deno's module cache lives under HOME by default; keep it when a test moves HOME.
  const denoDir = Deno.env.get("DENO_DIR") ??
    join(Deno.env.get("XDG_CACHE_HOME") ?? join(Deno.env.get("HOME") ?? "/tmp", ".cache"), "deno");
  env.DENO_DIR = denoDir;
  // Under deno task test, the run's scratch folder (scripts/test_run.ts) is the CLI's TMPDIR
  // too: what a CLI a test kills leaves (a run's work folder, the sandbox's account files)
  // goes with the scratch at the end instead of piling up in /tmp.
  const scratch = Deno.env.get("SKILLS_TEST_SCRATCH");
  if (scratch) env.TMPDIR = scratch;
  return { ...env, ...extra };
}

/** The argv that starts the CLI: `deno run <the binary's flags> <entry> ...args`. */
export function cliArgv(args: string[]): string[] {
  return [Deno.execPath(), "run", ...entryFlags(), cliEntry(), ...args];
}

export interface SpawnOptions {
  /** As for runCli: PATH and HOME are filled in unless given; nothing else leaks in. */
  env?: Record<string, string>;
  cwd?: string;
  /** Default "null". */
  stdin?: "piped" | "null";
  /** Default "piped". */
  stdout?: "piped" | "null";
  /** Default "piped". */
  stderr?: "piped" | "null";
  signal?: AbortSignal;
}

/** Starts the CLI and hands back the running process (for signals, pipes and timing). */
export function spawnCli(args: string[], options: SpawnOptions = {}): Deno.ChildProcess {
  const [command, ...rest] = cliArgv(args);
  return new Deno.Command(command!, {
    args: rest,
    cwd: options.cwd ?? defaultCwd(),
    env: baseEnv(options.env),
    clearEnv: true,
    stdin: options.stdin ?? "null",
    stdout: options.stdout ?? "piped",
    stderr: options.stderr ?? "piped",
    signal: options.signal,
  }).spawn();
}

/** Waits `delayMs`, then SIGKILLs `child` (unless it has already ended) and awaits its end. */
export async function killAfter(
  child: Deno.ChildProcess,
  delayMs: number,
): Promise<Deno.CommandStatus> {
  await new Promise((resolve) => setTimeout(resolve, delayMs));
  try {
    child.kill("SIGKILL");
  } catch { /* it had already finished */ }
  return await child.status;
}

export async function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  const child = spawnCli(args, {
    ...options,
    stdin: options.stdin === undefined ? "null" : "piped",
  });
  if (options.stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(options.stdin));
    await writer.close();
  }
  const output = await child.output();
  return {
    code: output.code,
    stdout: new TextDecoder().decode(output.stdout),
    stderr: new TextDecoder().decode(output.stderr),
  };
}

/** Runs `command` in `cwd` with only the base environment plus `env`; its exit code and output. */
export async function runProgram(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<CliResult> {
  const output = await new Deno.Command(command, {
    args,
    cwd,
    env: baseEnv(env),
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}

/** A run's `--json` output, once the run is known to have succeeded (exit 0). */
export function okJson(result: CliResult) {
  assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
  return JSON.parse(result.stdout);
}

export interface TempDir extends AsyncDisposable {
  path: string;
}

/**
 * A temp directory removed at the end of the scope: `await using dir = await tempDir()`; in a
 * run of scripts/test_run.ts, left for the run's one removal of its scratch folder.
 */
export async function tempDir(prefix = "skills-test-"): Promise<TempDir> {
  const path = await Deno.makeTempDir({ prefix });
  const scratch = Deno.env.get(SCRATCH_VARIABLE);
  const kept = scratch !== undefined && scratch !== "" && path.startsWith(`${scratch}/`);
  return {
    path,
    // Opens read-only folders first (verified run copies are sealed: trust/snapshot.ts).
    [Symbol.asyncDispose]: () => kept ? Promise.resolve() : removeIfExists(path).catch(() => {}),
  };
}

/** Asserts a CLI run exited 0, showing its output when it did not. */
export function exitedOk(r: { code: number; stdout: string; stderr: string }): void {
  assert.equal(r.code, 0, `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
}
