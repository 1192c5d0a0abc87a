/**
 * The `.npmrc` files npm itself would read for a command run here: the project's (the nearest
 * one from the user's directory up to the repository root, a folder with `.git`) and the
 * user's (`$NPM_CONFIG_USERCONFIG`, else `~/.npmrc`), read into one configuration by
 * core/sources/npmrc.ts, which decides what a project's file may do.
 */

import { dirname, join } from "../os/paths.ts";
import { lstatOrNull } from "../os/fs.ts";
import { type NpmConfig, readNpmConfig } from "../../core/sources/npmrc.ts";

/** An `.npmrc` is a few lines; a large one is no configuration. */
const MAX_NPMRC_BYTES = 256 * 1024;

async function readSmall(path: string): Promise<string | undefined> {
  const info = await lstatOrNull(path);
  if (info === null || !info.isFile || info.size > MAX_NPMRC_BYTES) return undefined;
  return await Deno.readTextFile(path).catch(() => undefined);
}

/** The project's `.npmrc`: the nearest from `cwd` up to a folder with `.git`. */
async function projectNpmrc(cwd: string): Promise<string | undefined> {
  for (let dir = cwd;; dir = dirname(dir)) {
    const text = await readSmall(join(dir, ".npmrc"));
    if (text !== undefined) return text;
    if ((await lstatOrNull(join(dir, ".git"))) !== null || dirname(dir) === dir) return undefined;
  }
}

/** The npm configuration in force for the user's directory and environment. */
export async function loadNpmConfig(
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): Promise<NpmConfig> {
  const files: { origin: "project" | "user"; text: string }[] = [];
  const userPath = env.NPM_CONFIG_USERCONFIG ?? env.npm_config_userconfig ??
    (env.HOME ? join(env.HOME, ".npmrc") : undefined);
  const user = userPath === undefined ? undefined : await readSmall(userPath);
  if (user !== undefined) files.push({ origin: "user", text: user });
  const project = await projectNpmrc(cwd);
  // The user's own file, found again from a directory under the home: read once, as the user's.
  if (project !== undefined && project !== user) files.push({ origin: "project", text: project });
  return readNpmConfig(files, env);
}
