/**
 * A temporary git project for end-to-end tests of project skills: `<tmp>/app` (a git work
 * tree, the repository root), a scratch `$SKILLS_HOME` and `$HOME`, and the CLI run from
 * inside the project (by default from `app/src`, a subfolder, as a developer would).
 */

import { join } from "node:path";
import { createHash } from "node:crypto";
import { git } from "../fixtures/git_repos.ts";
import { type CliResult, runCli, tempDir } from "./cli.ts";
import { readTree } from "./tree.ts";

export interface Project extends AsyncDisposable {
  /** The temp directory holding everything (repositories are created here too). */
  dir: string;
  /** The project (repository root). */
  root: string;
  home: string;
  cli(args: string[], options?: { cwd?: string; env?: Record<string, string> }): Promise<CliResult>;
  /** The parsed skills-lock.json. */
  lock(): Promise<Record<string, unknown> & { skills: Record<string, LockEntryShape> }>;
  /** Every file of a folder: relative path → bytes (for byte-for-byte comparisons). */
  files(dir: string): Promise<Map<string, string>>;
}

/** An entry as skills-lock.json holds it: vercel-labs' fields, then this tool's. */
export interface LockEntryShape {
  source: string;
  sourceType: string;
  sourceUrl?: string;
  ref?: string;
  skillPath: string;
  computedHash?: string;
  name: string;
  branch: string | null;
  tag: string | null;
  pinnedRef: string | null;
  commit: string | null;
  digest: string;
  files: Record<string, string>;
  permissions: { env: string[]; network?: string[] };
}

export async function project(): Promise<Project> {
  const tmp = await tempDir("skills-project-");
  const root = join(tmp.path, "app");
  const home = join(tmp.path, "skills-home");
  await Deno.mkdir(join(root, "src"), { recursive: true });
  await git(root, ["init", "--quiet"]);
  return {
    dir: tmp.path,
    root,
    home,
    cli: (args, options = {}) =>
      runCli(args, {
        cwd: options.cwd ?? join(root, "src"),
        env: { SKILLS_HOME: home, HOME: tmp.path, GIT_CONFIG_GLOBAL: "/dev/null", ...options.env },
      }),
    lock: async () => JSON.parse(await Deno.readTextFile(join(root, "skills-lock.json"))),
    files: readTree,
    [Symbol.asyncDispose]: () => tmp[Symbol.asyncDispose](),
  };
}

/**
 * vercel-labs' `computedHash` of a skill folder, written independently of both CLIs: every
 * file's path (sorted with localeCompare) then its bytes, in one sha256.
 */
export async function vercelHash(dir: string): Promise<string> {
  const files: { path: string; bytes: Uint8Array }[] = [];
  const walk = async (at: string, rel: string) => {
    for await (const e of Deno.readDir(at)) {
      const path = rel === "" ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory) await walk(join(at, e.name), path);
      else files.push({ path, bytes: await Deno.readFile(join(at, e.name)) });
    }
  };
  await walk(dir, "");
  files.sort((a, b) => a.path.localeCompare(b.path));
  const hash = createHash("sha256");
  for (const f of files) hash.update(f.path).update(f.bytes);
  return hash.digest("hex");
}
