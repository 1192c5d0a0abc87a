/**
 * `read_skill_file`: one text file inside a skill. Relative paths only, realpath
 * containment (a symlink cannot lead out), hidden files refused, binary files refused,
 * at most 200 KB returned with a truncation warning.
 */

import { join } from "../runtime/os/paths.ts";
import { type Envelope, fail, ok } from "../core/envelope.ts";
import type { SkillRecord } from "../runtime/catalog/catalog.ts";
import { isWithin, readPrefixSync } from "../runtime/os/fs.ts";
import { skillFilePath } from "./tool_args.ts";

const MAX_READ_BYTES = 200_000;
/** How much of a file is inspected for NUL bytes. */
const BINARY_PROBE_BYTES = 8192;

export async function readSkillFile(skill: SkillRecord, path: string): Promise<Envelope> {
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
