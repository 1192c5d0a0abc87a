/**
 * Run folders a dead CLI left (`$SKILLS_HOME/.cache/runs/*`), looked at before each
 * transactional run: one whose lock a live run holds is left alone; one whose journal says an
 * apply had begun is rolled forward (the user's folder ends fully applied); any other (a run
 * killed before its script ended, or before its apply began) is removed, its diff discarded —
 * the user's folder was never touched.
 */

import { join } from "../os/paths.ts";
import { lstatSyncOrNull, removeIfExists } from "../os/fs.ts";
import { RUNS_FOLDER } from "./layer.ts";
import { type ApplyJournal, runJournal } from "./apply.ts";

export const JOURNAL = "journal.json";

/** What recovery did: folders rolled forward (the workspaces), folders discarded. */
interface Recovered {
  applied: string[];
  discarded: number;
}

export async function recoverRuns(home: string): Promise<Recovered> {
  const recovered: Recovered = { applied: [], discarded: 0 };
  const runs = join(home, RUNS_FOLDER);
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(runs)];
  } catch {
    return recovered; // no run folder yet
  }
  for (const entry of entries) {
    if (!entry.isDirectory || !entry.name.startsWith("run-")) continue;
    const dir = join(runs, entry.name);
    let lock: Deno.FsFile | undefined;
    try {
      lock = Deno.openSync(join(dir, "lock"), { read: true, write: true });
      if (!lock.tryLockSync(true)) continue; // a live run
    } catch { /* no lock file: a run that died while making its folder */ }
    try {
      const journal = readJournal(join(dir, JOURNAL));
      if (journal !== undefined) {
        runJournal(journal);
        recovered.applied.push(journal.workspace);
      } else recovered.discarded++;
      lock?.close();
      lock = undefined;
      await removeIfExists(dir);
    } catch {
      /* left for the next run */
    } finally {
      lock?.close();
    }
  }
  return recovered;
}

function readJournal(path: string): ApplyJournal | undefined {
  if (lstatSyncOrNull(path) === null) return undefined;
  const value = JSON.parse(Deno.readTextFileSync(path)) as ApplyJournal;
  if (
    value?.version !== 1 || typeof value.workspace !== "string" ||
    typeof value.upper !== "string" || typeof value.tag !== "string" || !Array.isArray(value.ops)
  ) throw new Error(`unreadable journal ${path}`);
  return value;
}
