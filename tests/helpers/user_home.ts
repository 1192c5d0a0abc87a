/**
 * The CLI run by one user in a scratch folder: `<tmp>` is the working directory, `<tmp>/home`
 * the `$SKILLS_HOME`, git reads no global configuration. The setup end-to-end tests of the
 * user scope share; each adds its own views of the home on top.
 */

import { join } from "node:path";
import type { Registry } from "../../src/core/records/registry.ts";
import { type CliOptions, type CliResult, runCli, type TempDir, tempDir } from "./cli.ts";

export interface UserHome extends AsyncDisposable {
  /** The working directory (sources are made here too). */
  dir: TempDir;
  /** `$SKILLS_HOME`: `<dir>/home`, not created until the CLI writes it. */
  home: string;
  /** The environment every run gets (`options.env` adds to it). */
  env: { SKILLS_HOME: string; GIT_CONFIG_GLOBAL: string };
  cli(args: string[], options?: Pick<CliOptions, "env" | "stdin">): Promise<CliResult>;
  /** The parsed registry.json, or null before anything was written. */
  registry(): Promise<Registry | null>;
}

export async function userHome(): Promise<UserHome> {
  const dir = await tempDir();
  const home = join(dir.path, "home");
  const env = { SKILLS_HOME: home, GIT_CONFIG_GLOBAL: "/dev/null" };
  return {
    dir,
    home,
    env,
    cli: (args, options = {}) =>
      runCli(args, {
        cwd: dir.path,
        env: { ...env, ...options.env },
        ...options.stdin === undefined ? {} : { stdin: options.stdin },
      }),
    registry: async () => {
      try {
        return JSON.parse(await Deno.readTextFile(join(home, "registry.json")));
      } catch {
        return null;
      }
    },
    [Symbol.asyncDispose]: () => dir[Symbol.asyncDispose](),
  };
}
