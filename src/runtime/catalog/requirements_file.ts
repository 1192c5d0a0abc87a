/**
 * Where a Python script without a PEP 723 block declares its packages: a `requirements.txt`
 * beside it, else at the skill root. Apart from contents.ts so that a run, which reads it
 * (exec/languages/python.ts), does not load the catalog's listing code with it.
 */

import { dirname, join } from "../os/paths.ts";
import { lstatSyncOrNull } from "../os/fs.ts";

/**
 * The `requirements.txt` of a script: in its own folder, else at the skill root. Only a
 * regular file counts (never a symlink).
 */
export function requirementsFile(
  scriptPath: string,
  skillDir: string | undefined,
): string | undefined {
  const folders = [dirname(scriptPath), ...(skillDir === undefined ? [] : [skillDir])];
  for (const folder of folders) {
    const candidate = join(folder, "requirements.txt");
    const info = lstatSyncOrNull(candidate);
    if (info !== null && info.isFile && !info.isSymlink) return candidate;
  }
  return undefined;
}
