/**
 * The git configs a script could read in or above its workspace, shown as copies without
 * credentials (core/policy/git_config.ts): the repository the workspace is in (found above it,
 * as git finds it), each `.git` the secret search found inside it, a linked worktree's common
 * folder (its `.git` is a file naming it), `config.worktree` files, and submodules' configs
 * (`.git/modules/…`); the files their `[include]`s name are masked. A config holding no
 * credential is left as it is (no mount). The copies
 * are kept in `$SKILLS_HOME/.cache/git-config/` (hidden from every sandbox), named by their
 * text, and reused while their text is the same.
 */

import { includedPaths, sanitizeGitConfig } from "../../core/policy/git_config.ts";
import { dirname, join, resolve } from "../os/paths.ts";
import { lstatSyncOrNull } from "../os/fs.ts";

/** A file shown at `target` with the text of `source`. */
interface ShownCopy {
  source: string;
  target: string;
}

/** Configs larger than this are no checkout's: hidden instead of parsed. */
const MAX_CONFIG_BYTES = 1024 * 1024;
/** How deep submodules of submodules are followed (`modules/a/modules/b/…`). */
const MAX_MODULE_DEPTH = 4;

/** The git folder a `.git` entry stands for: itself, or the folder its `gitdir:` line names. */
function gitDirOf(entry: string): string | undefined {
  const info = lstatSyncOrNull(entry);
  if (info === null) return undefined;
  if (info.isDirectory) return entry;
  if (!info.isFile) return undefined;
  try {
    const line = /^gitdir:\s*(.+?)\s*$/m.exec(Deno.readTextFileSync(entry))?.[1];
    return line === undefined ? undefined : resolve(dirname(entry), line);
  } catch {
    return undefined;
  }
}

/** `.git` entries in `dir`'s parents, nearest first: the repository git finds from there. */
function gitEntriesAbove(dir: string): string[] {
  const found: string[] = [];
  for (let at = dirname(dir);; at = dirname(at)) {
    const entry = join(at, ".git");
    if (lstatSyncOrNull(entry) !== null) found.push(entry);
    if (at === dirname(at)) return found;
  }
}

/** Every config file of a git folder: its common folder's, worktrees', submodules'. */
function configFiles(gitDir: string, into: Set<string>, depth = 0): void {
  let common = gitDir;
  try {
    common = resolve(gitDir, Deno.readTextFileSync(join(gitDir, "commondir")).trim());
  } catch { /* not a linked worktree */ }
  for (const file of [join(common, "config"), join(common, "config.worktree")]) into.add(file);
  into.add(join(gitDir, "config.worktree"));
  for (const [folder, deeper] of [["worktrees", false], ["modules", true]] as const) {
    let entries: Deno.DirEntry[] = [];
    try {
      entries = [...Deno.readDirSync(join(common, folder))];
    } catch { /* none */ }
    for (const entry of entries) {
      if (!entry.isDirectory) continue;
      const inner = join(common, folder, entry.name);
      if (deeper && depth < MAX_MODULE_DEPTH) configFiles(inner, into, depth + 1);
      else into.add(join(inner, "config.worktree"));
    }
  }
}

/** FNV-1a, 32 bits: names a copy (its text is compared before reuse, so a clash costs nothing). */
function fnv1a(text: string): string {
  let hash = 2166136261;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 16777619);
  return (hash >>> 0).toString(16).padStart(8, "0");
}

/** The stored copy holding `text`, written (readable by a root CLI's sandbox uid) if need be. */
function storedCopy(store: string, text: string): string {
  const path = join(store, `${fnv1a(text)}-${text.length}`);
  try {
    if (Deno.readTextFileSync(path) === text) return path;
  } catch { /* not there yet */ }
  Deno.mkdirSync(store, { recursive: true });
  const temp = `${path}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  Deno.writeTextFileSync(temp, text, { mode: 0o644 });
  Deno.chmodSync(temp, 0o644); // whatever the umask
  Deno.renameSync(temp, path);
  return path;
}

/**
 * The copies to show over the git configs of `dir` (a real path) and of the `.git` entries
 * found in it; `unreadable` receives configs that could not be read or are too large (to be
 * masked whole). `store`: `$SKILLS_HOME/.cache/git-config`.
 */
export function sanitizedGitConfigs(
  dir: string,
  gitEntries: readonly string[],
  store: string,
  unreadable: string[],
): ShownCopy[] {
  const files = new Set<string>();
  for (const entry of [...gitEntriesAbove(dir), join(dir, ".git"), ...gitEntries]) {
    const gitDir = gitDirOf(entry);
    if (gitDir !== undefined) configFiles(gitDir, files);
  }
  const copies = new Map<string, string>();
  for (const file of files) {
    let target: string;
    let text: string;
    try {
      target = Deno.realPathSync(file);
      const info = Deno.statSync(target);
      if (!info.isFile) continue;
      if (info.size > MAX_CONFIG_BYTES) {
        unreadable.push(target);
        continue;
      }
      text = Deno.readTextFileSync(target);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) unreadable.push(file);
      continue;
    }
    const clean = sanitizeGitConfig(text);
    if (clean !== text) copies.set(target, storedCopy(store, clean));
    // The files it includes are hidden as well (the copy no longer names them).
    for (const included of includedPaths(text)) {
      if (included.startsWith("~")) continue; // in the home, hidden anyway
      try {
        const real = Deno.realPathSync(resolve(dirname(target), included));
        if (Deno.statSync(real).isFile) unreadable.push(real);
      } catch { /* not there: nothing to read */ }
    }
  }
  return [...copies].map(([target, source]) => ({ source, target }));
}
