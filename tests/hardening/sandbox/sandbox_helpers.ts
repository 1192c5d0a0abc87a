/**
 * Shared set-up for the OS sandbox tests: a skills home with the hostile `sandbox-lab`
 * skill (tests/fixtures/runner-skills/sandbox-lab) and another installed skill to spy on,
 * a home directory with planted secrets, and `skills run` against them; a test declared
 * with a fresh lab of its own, and copies of the lab's attempt script under manifests that
 * declare what a test needs.
 */

import { join } from "node:path";
import { type CliResult, runCli, type TempDir, tempDir } from "../../helpers/cli.ts";
import {
  installFixtureSkill,
  installRunnerSkill,
  RUNNER_SKILLS,
} from "../../helpers/install_fixture.ts";
import { needsSandbox } from "../../helpers/sandbox.ts";

/** How {@link Lab.runAttempt} runs an attempt script. */
export interface AttemptOptions {
  /** The skill whose script runs: sandbox-lab, or a copy {@link installAttemptSkill} made. */
  skill?: string;
  /** `skills run` flags, before the skill (`--allow-net HOST:PORT`). */
  flags?: string[];
  /** Variables besides the lab's. */
  env?: Record<string, string>;
}

export interface Lab extends AsyncDisposable {
  /** `$SKILLS_HOME`. */
  home: string;
  /** The user's home: `~/.ssh/id_test` holds {@link SSH_SECRET}. */
  userHome: string;
  /** The directory `skills` runs in: `data.txt` and a `.env` holding {@link DOTENV_SECRET}. */
  callerDir: string;
  /** A folder outside everything the script may write to. */
  outside: string;
  /** The installed sandbox-lab folder and another skill's. */
  labDir: string;
  otherDir: string;
  /** `skills run <args>` with the lab's environment (plus `env`), in callerDir by default. */
  run(args: string[], env?: Record<string, string>, options?: { cwd?: string }): Promise<CliResult>;
  /**
   * `skills run <flags> <skill> attempt <ops> --json` as it ran: for a test of its exit code or
   * of what it said on stderr.
   */
  runAttempt(ops: string[], options?: AttemptOptions): Promise<CliResult>;
  /** `skills run sandbox-lab attempt <ops> --json`, parsed. */
  attempt(
    ops: string[],
    env?: Record<string, string>,
    flags?: string[],
  ): Promise<Record<string, { ok: boolean; detail: string }>>;
}

export const SSH_SECRET = "ssh-secret-4b1d";
export const DOTENV_SECRET = "dotenv-secret-77c2";
/** Set in the CLI's own environment: no script may find it anywhere. */
export const ENV_SECRET = "sk-live-env-secret-91aa";

/**
 * A folder holding only `python3` (a link to the real interpreter, not a version manager's
 * shim, which would add variables of its own): PATH for tests about exact environments.
 */
export async function pythonOnlyBin(parent: string): Promise<string> {
  const bin = join(parent, "bin");
  await Deno.mkdir(bin, { recursive: true });
  const python = await new Deno.Command("python3", {
    args: ["-c", "import sys; print(sys.executable)"],
  }).output();
  await Deno.symlink(new TextDecoder().decode(python.stdout).trim(), join(bin, "python3"));
  return bin;
}

export async function setupLab(): Promise<Lab> {
  const dirs: TempDir[] = [];
  const dir = async (prefix: string) => {
    const made = await tempDir(prefix);
    dirs.push(made);
    return made.path;
  };
  const home = await dir("skills-sbx-home-");
  const userHome = await dir("skills-sbx-user-");
  const callerDir = await dir("skills-sbx-cwd-");
  const outside = await dir("skills-sbx-outside-");
  await Deno.mkdir(join(userHome, ".ssh"));
  await Deno.writeTextFile(join(userHome, ".ssh", "id_test"), `${SSH_SECRET}\n`);
  // As root the sandbox runs scripts as an unprivileged uid: like any user's project
  // folder, this one must be readable by others (temp folders are made 0700).
  await Deno.chmod(callerDir, 0o755);
  await Deno.writeTextFile(join(callerDir, "data.txt"), "the user's data\n");
  await Deno.writeTextFile(join(callerDir, ".env"), `OPENAI_API_KEY=${DOTENV_SECRET}\n`);
  const labDir = await installFixtureSkill(home, join(RUNNER_SKILLS, "sandbox-lab"));
  const otherDir = await installRunnerSkill(home, "runner-lab");
  const baseEnv = {
    SKILLS_HOME: home,
    HOME: userHome,
    OPENAI_API_KEY: ENV_SECRET,
  };
  const run = (args: string[], env: Record<string, string> = {}, options: { cwd?: string } = {}) =>
    runCli(["run", ...args], { env: { ...baseEnv, ...env }, cwd: options.cwd ?? callerDir });
  const runAttempt = (
    ops: string[],
    { skill = "sandbox-lab", flags = [], env = {} }: AttemptOptions = {},
  ) => run([...flags, skill, "attempt", ...ops, "--json"], env);
  return {
    home,
    userHome,
    callerDir,
    outside,
    labDir,
    otherDir,
    run,
    runAttempt,
    async attempt(ops, env = {}, flags = []) {
      const result = await runAttempt(ops, { flags, env });
      if (result.code !== 0) {
        throw new Error(`attempt exited ${result.code}: ${result.stdout}\n${result.stderr}`);
      }
      return JSON.parse(result.stdout);
    },
    async [Symbol.asyncDispose]() {
      for (const made of dirs) await made[Symbol.asyncDispose]();
    },
  };
}

/**
 * A test of the OS sandbox (skipped where bubblewrap cannot work) with a fresh lab, removed
 * after it whatever the test's outcome.
 */
export function labTest(name: string, fn: (lab: Lab) => Promise<void>): void {
  Deno.test(name, needsSandbox, async () => {
    await using lab = await setupLab();
    await fn(lab);
  });
}

/**
 * Installs the skill `name` in the lab's home: sandbox-lab's attempt script under a manifest
 * of its own, whose `permissions:` block holds the lines `permissions` (indented YAML), for a
 * test of what a skill's own declaration lets its script do.
 */
export async function installAttemptSkill(
  lab: Lab,
  name: string,
  description: string,
  permissions: string[],
): Promise<void> {
  const source = join(lab.outside, name);
  await Deno.mkdir(join(source, "scripts"), { recursive: true });
  await Deno.copyFile(
    join(lab.labDir, "scripts", "attempt.py"),
    join(source, "scripts", "attempt.py"),
  );
  const manifest = [
    "---",
    `name: ${name}`,
    `description: ${description}`,
    "permissions:",
    ...permissions,
    "---",
    "",
    `# ${name}`,
    "",
  ];
  await Deno.writeTextFile(join(source, "SKILL.md"), manifest.join("\n"));
  await installFixtureSkill(lab.home, source);
}
