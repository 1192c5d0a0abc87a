/**
 * The services tests' fixture: a temp `$SKILLS_HOME` with companion-lab (a page server in the
 * layout of a brainstorming companion, tests/fixtures/runner-skills/companion-lab) trusted, a
 * workspace the sandbox shows with its exchange folder `.companion`, and the CLI run there.
 * Disposing it stops every service still running, so no test leaves a process behind. Also
 * the companion's run words, and a test declared with a fixture of its own.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { type CliResult, runCli, tempDir } from "./cli.ts";
import { installRunnerSkill } from "./install_fixture.ts";
import { needsSandbox, visibleFolder } from "./sandbox.ts";

export { freePort } from "./oci_registry.ts";

/** Debian's python3 first, as a newcomer has it. */
const PATH = "/usr/bin:/usr/local/bin:/bin";

/** Deno.test options for a services test: services run only in the OS sandbox, on Linux. */
export const needsServices = {
  ...needsSandbox,
  ignore: needsSandbox.ignore || Deno.build.os !== "linux",
};

/** companion-lab's page server, told to exchange files through the workspace's `.companion`. */
export const COMPANION = ["companion-lab", "companion", "--project-dir", ".companion"];

/** The flags that make `.companion` the service's live folder: its writes show at once. */
export const COMPANION_LIVE = ["--write", ".companion"];

export interface ServiceFixture extends AsyncDisposable {
  home: string;
  workspace: string;
  env: Record<string, string>;
  cli(args: string[]): Promise<CliResult>;
  /** `skills run --background --json … companion-lab companion --project-dir .companion …`. */
  startCompanion(flags?: string[], scriptArgs?: string[]): Promise<StartedCompanion>;
  /** `skills ps --all --json`'s services. */
  services(): Promise<ListedJson[]>;
}

export interface StartedCompanion {
  id: string;
  ports: { sandbox: number; host: number }[];
  urls: string[];
  /** The script's `server-started` line. */
  info: { port: number; url: string; screen_dir: string; state_dir: string };
}

// deno-lint-ignore no-explicit-any
export type ListedJson = Record<string, any>;

export async function serviceFixture(): Promise<ServiceFixture> {
  const home = await tempDir("skills-services-home-");
  const workspace = await visibleFolder("skills-services-ws-");
  await installRunnerSkill(home.path, "companion-lab");
  await Deno.mkdir(join(workspace.path, ".companion"));
  const env = { SKILLS_HOME: home.path, PATH, SKILLS_SANDBOX: "required" };
  const cli = (args: string[]) => runCli(args, { env, cwd: workspace.path });
  const services = async () => {
    const listed = await cli(["ps", "--all", "--json"]);
    assert.equal(listed.code, 0, listed.stderr);
    return JSON.parse(listed.stdout).services as ListedJson[];
  };
  return {
    home: home.path,
    workspace: workspace.path,
    env,
    cli,
    services,
    startCompanion: async (flags = [], scriptArgs = []) => {
      const result = await cli([
        "run",
        "--background",
        "--json",
        ...COMPANION_LIVE,
        ...flags,
        ...COMPANION,
        ...scriptArgs,
      ]);
      assert.equal(result.code, 0, result.stderr);
      const started = JSON.parse(result.stdout);
      return { ...started, info: JSON.parse(started.output.trim().split("\n")[0]) };
    },
    [Symbol.asyncDispose]: async () => {
      for (const service of await services()) {
        if (service.status === "running") await cli(["stop", service.id]);
      }
      await workspace[Symbol.asyncDispose]();
      await home[Symbol.asyncDispose]();
    },
  };
}

/**
 * A test of services, skipped where they cannot run, with a fresh {@link serviceFixture}
 * that is disposed after it, whatever the test's outcome.
 */
export function serviceTest(name: string, fn: (fx: ServiceFixture) => Promise<void>): void {
  Deno.test({
    name,
    ...needsServices,
    fn: async () => {
      await using fx = await serviceFixture();
      await fn(fx);
    },
  });
}

/** Whether something accepts a TCP connection at 127.0.0.1:`port`. */
export async function accepts(port: number): Promise<boolean> {
  try {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    conn.close();
    return true;
  } catch {
    return false;
  }
}
