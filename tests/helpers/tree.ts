/**
 * Folders of files for tests: written from a `path → text` map (into a temp folder of their
 * own, or under a given one), read back as one (for "nothing changed" and byte-for-byte
 * comparisons), and the small runnable skill that publishing, pulling and adding tests share.
 */

import { dirname, join } from "node:path";
import { type TempDir, tempDir } from "./cli.ts";

/** Writes each `relative path → text` under `root`, making folders on the way. */
export async function writeTree(root: string, files: Record<string, string>): Promise<void> {
  for (const [rel, text] of Object.entries(files)) {
    const path = join(root, rel);
    await Deno.mkdir(dirname(path), { recursive: true });
    await Deno.writeTextFile(path, text);
  }
}

/**
 * A temp folder holding `files` (see {@link writeTree}), removed at the end of the scope:
 * `await using dir = await tempTree({ "a/.env": "x" })`.
 */
export async function tempTree(files: Record<string, string>): Promise<TempDir> {
  const dir = await tempDir();
  try {
    await writeTree(dir.path, files);
  } catch (error) {
    await dir[Symbol.asyncDispose]();
    throw error;
  }
  return dir;
}

/** Every file under `root` as `relative path → text`; empty when `root` does not exist. */
export async function readTree(root: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (at: string, rel: string) => {
    for await (const entry of Deno.readDir(at)) {
      const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory) await walk(join(at, entry.name), path);
      else out.set(path, await Deno.readTextFile(join(at, entry.name)));
    }
  };
  await walk(root, "").catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  });
  return out;
}

/** The script of {@link writeShellSkill}. */
export const RUN_SH = "#!/bin/sh\necho hi\n";

/**
 * A skill folder `dir` holding `SKILL.md` as `---\n<frontMatter>\n---\n<body>`: the one
 * file every skill needs, which tests of the reader, catalog and publishing each wrote.
 */
export async function writeSkillMd(dir: string, frontMatter: string, body: string) {
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(join(dir, "SKILL.md"), `---\n${frontMatter}\n---\n${body}`);
}

/**
 * A skill folder `dir` with `SKILL.md` (see {@link writeSkillMd}) and an executable
 * `scripts/run.sh` that prints "hi".
 */
export async function writeShellSkill(dir: string, frontMatter: string, body: string) {
  await writeSkillMd(dir, frontMatter, body);
  await Deno.mkdir(join(dir, "scripts"), { recursive: true });
  await Deno.writeTextFile(join(dir, "scripts", "run.sh"), RUN_SH);
  await Deno.chmod(join(dir, "scripts", "run.sh"), 0o755);
}
