/**
 * The journal on disk (its model and the older formats it reads: core/records/journal.ts):
 * written into a change's staging directory under the registry lock before its first
 * rename, read back by store/recovery.ts after a crash.
 */

import { join } from "../os/paths.ts";
import {
  type Journal,
  JOURNAL_FILE,
  LEGACY_PROJECT_FILE,
  LEGACY_USER_FILE,
  parseJournal,
  parseLegacyJournal,
  serializeJournal,
} from "../../core/records/journal.ts";
import { writeFileAtomicSync } from "../os/fs.ts";
import type { Staging } from "./staging.ts";

/** Must be called under the registry lock, before the first rename. */
export function writeJournal(staging: Staging, journal: Journal): void {
  writeFileAtomicSync(join(staging.path, JOURNAL_FILE), serializeJournal(journal));
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch {
    return undefined;
  }
}

/**
 * The journal a dead command of `scope` left in staging directory `dir`, in whichever
 * format it wrote; undefined when it left none, an unreadable one, or one of the other
 * scope (a journal is only acted on where its own kind of change writes it).
 */
export async function readJournal(
  dir: string,
  scope: Journal["scope"],
): Promise<Journal | undefined> {
  const text = await readText(join(dir, JOURNAL_FILE));
  if (text !== undefined) return parseJournal(text, scope);
  const legacy = await readText(
    join(dir, scope === "user" ? LEGACY_USER_FILE : LEGACY_PROJECT_FILE),
  );
  return legacy === undefined ? undefined : parseLegacyJournal(legacy, scope);
}
