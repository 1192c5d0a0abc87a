/**
 * `read_skill_file`: one text file inside a skill. Relative paths only, realpath
 * containment (a symlink cannot lead out), hidden files refused, binary files refused,
 * at most 200 KB returned with a truncation warning.
 */

import { join } from "../../runtime/os/paths.ts";
import { type Envelope, fail, type FailureEnvelope, ok } from "../../core/envelope.ts";
import type { LoadedSkill } from "../../runtime/catalog/catalog.ts";
import { isWithin, readPrefixSync } from "../../runtime/os/fs.ts";
import { skillFilePath } from "./tool_args.ts";

const MAX_READ_BYTES = 200_000;
/** How much of a file is inspected for NUL bytes. */
const BINARY_PROBE_BYTES = 8192;

/** A file of a skill, found by its relative path: where it really is, and its name to show. */
interface ResolvedFile {
  real: string;
  shown: string;
  info: Deno.FileInfo;
}

/**
 * Resolves `path` inside `skill`: relative, no hidden or `..` segments (skillFilePath),
 * realpath-contained (a symlink cannot lead out), a regular file. Shared by
 * `read_skill_file` and the MCP resources (mcp/skill_files.ts).
 */
export async function resolveSkillFile(
  skill: LoadedSkill,
  path: string,
): Promise<ResolvedFile | FailureEnvelope> {
  const checked = skillFilePath(path);
  if (!checked.ok) return checked.error;
  const relative = checked.value.join("/");
  const shown = `${skill.canonical}/${relative}`;
  let real: string;
  try {
    real = await Deno.realPath(join(skill.dir, ...checked.value));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      return fail("not_found", `File '${relative}' not found in skill '${skill.canonical}'`);
    }
    throw error;
  }
  if (!isWithin(skill.dir, real) || real === skill.dir) {
    return fail("permission_denied", `Cannot read '${shown}': it resolves outside the skill`);
  }
  const info = await Deno.stat(real);
  if (info.isDirectory) {
    return fail("invalid_path", `'${shown}' is a directory; ask for a file inside it`);
  }
  if (!info.isFile) return fail("invalid_path", `'${shown}' is not a regular file`);
  return { real, shown, info };
}

export async function readSkillFile(skill: LoadedSkill, path: string): Promise<Envelope> {
  const resolved = await resolveSkillFile(skill, path);
  if ("success" in resolved) return resolved;
  const { real, shown, info } = resolved;
  const { bytes, complete } = readPrefixSync(real, MAX_READ_BYTES);
  if (bytes.subarray(0, BINARY_PROBE_BYTES).includes(0)) {
    return fail("binary_file", `Cannot read '${shown}': binary files are not supported`);
  }
  let text: string;
  try {
    // `stream: true` tolerates a UTF-8 sequence cut at the size cap.
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes, {
      stream: !complete,
    });
  } catch {
    return fail("binary_file", `Cannot read '${shown}': it is not UTF-8 text`);
  }
  const message = complete
    ? `Read ${shown} (${bytes.length} bytes)`
    : `Warning: ${shown} is truncated: showing the first ${MAX_READ_BYTES} of ${info.size} bytes`;
  return ok(text, message);
}
