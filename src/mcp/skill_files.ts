/**
 * The files of a skill as MCP serves them: `resources/read` returns exactly the bytes read
 * here, and SEP-2640's digests (skills_extension.ts) are computed from the same function,
 * so a host that checks a read against its entry's digest and size always agrees with us.
 * A file is served whole (text when it is UTF-8, else a base64 blob; a BOM is kept) — a
 * truncated or re-encoded read could never match a digest. The model-facing
 * `read_skill_file` tool keeps its 200 KB cap: this is for hosts, not for a context window.
 *
 * Served: regular files inside the skill directory (realpath containment, so a symlink
 * cannot lead out), no hidden segment (`.env`, `.git`), at most 16 MiB.
 */

import { join } from "../runtime/os/paths.ts";
import { fail, type FailureEnvelope } from "../core/envelope.ts";
import type { LoadedSkill } from "../runtime/catalog/catalog.ts";
import { resolveSkillFile } from "../agent/surface/read_skill_file.ts";

/** SEP-2640's per-skill limits: a host must accept skills up to these. */
const MAX_SKILL_FILES = 512;
const MAX_SKILL_BYTES = 16 * 1024 * 1024;
const MAX_DEPTH = 16;

/** One file's bytes as served, with the content form `resources/read` uses. */
interface ServedFile {
  bytes: Uint8Array;
  /** The UTF-8 text when the bytes are text (no NUL, valid UTF-8), else undefined (a blob). */
  text: string | undefined;
}

function textOf(bytes: Uint8Array): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    // ignoreBOM: a BOM stays in the text, so encoding the text gives back the same bytes.
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** Reads one file of a skill by its relative path, whole; a failure envelope otherwise. */
export async function readServedFile(
  skill: LoadedSkill,
  path: string,
): Promise<ServedFile | FailureEnvelope> {
  const resolved = await resolveSkillFile(skill, path);
  if ("success" in resolved) return resolved;
  const { real, shown, info } = resolved;
  if (info.size > MAX_SKILL_BYTES) {
    return fail("args_too_large", `Cannot serve '${shown}': ${info.size} bytes is over 16 MiB`);
  }
  const bytes = await Deno.readFile(real);
  return { bytes, text: textOf(bytes) };
}

/**
 * The relative paths of every file a skill serves, sorted, SKILL.md included: regular
 * files only (symlinks are skipped, as the loader ignores them), no hidden segment. A
 * reason instead when the skill is over SEP-2640's limits.
 */
export async function servedFilePaths(skill: LoadedSkill): Promise<string[] | { refused: string }> {
  const out: string[] = [];
  let total = 0;
  const walk = async (dir: string, prefix: string, depth: number): Promise<string | undefined> => {
    if (depth > MAX_DEPTH) return `its folders are nested more than ${MAX_DEPTH} deep`;
    const entries: Deno.DirEntry[] = [];
    for await (const entry of Deno.readDir(dir)) entries.push(entry);
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (entry.name.startsWith(".") || entry.isSymlink) continue;
      const path = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
      if (entry.isDirectory) {
        const problem = await walk(join(dir, entry.name), path, depth + 1);
        if (problem !== undefined) return problem;
      } else if (entry.isFile) {
        out.push(path);
        total += (await Deno.lstat(join(dir, entry.name))).size;
        if (out.length > MAX_SKILL_FILES) return `it has more than ${MAX_SKILL_FILES} files`;
        if (total > MAX_SKILL_BYTES) return "its files add up to more than 16 MiB";
      }
    }
    return undefined;
  };
  const problem = await walk(skill.dir, "", 0);
  return problem === undefined ? out.sort() : { refused: problem };
}
