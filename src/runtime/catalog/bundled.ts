/**
 * Bundled skills travel inside the artifact (src/generated/bundled_skills.ts) and are
 * materialised on first use into `$SKILLS_HOME/.cache/core/<version>-<hash>/`, so Python can
 * execute them and a newer binary never runs stale copies. Only the names the binary
 * bundles are bundled skills (a directory dropped there is nothing), and each is checked
 * against its build-time digest before it runs (runtime/trust/snapshot.ts), restored from
 * the binary when it does not match.
 */

import { dirname, join } from "../os/paths.ts";
// @ts-types="../../generated/bundled_index.d.ts"
import { BUNDLED_HASH, BUNDLED_NAMES } from "../../generated/bundled_index.ts";
import { VERSION } from "../../core/version.ts";
import { exists, lstatSyncOrNull, removeIfExists } from "../os/fs.ts";
import { CORE_CACHE_DIR } from "../store/home.ts";

const COMPLETE_MARKER = ".complete";

export function bundledRootPath(home: string): string {
  return join(home, CORE_CACHE_DIR, `${VERSION}-${BUNDLED_HASH}`);
}

/** Returns the directory holding the bundled skills, writing it first if needed. */
export async function materializeBundledSkills(home: string): Promise<string> {
  const root = bundledRootPath(home);
  // Synchronous: a stat on every command that lists skills.
  if (lstatSyncOrNull(join(root, COMPLETE_MARKER)) !== null) return root;
  await writeBundledSkills(home, false);
  return root;
}

/**
 * Writes the bundled skills afresh over a copy that failed verification (edited files,
 * extra files): the old directory is moved aside first, so no run sees half of each.
 */
export async function restoreBundledSkills(home: string): Promise<string> {
  await writeBundledSkills(home, true);
  return bundledRootPath(home);
}

async function writeBundledSkills(home: string, replace: boolean): Promise<void> {
  const root = bundledRootPath(home);
  const staging = `${root}.tmp-${crypto.randomUUID().slice(0, 8)}`;
  // The contents are imported only here: once materialised, commands skip parsing them.
  const { BUNDLED_FILES }: typeof import("../../generated/bundled_skills.d.ts") = await import(
    "../../generated/bundled_skills.ts"
  );
  try {
    // Sync calls: a few dozen small files, written on a fresh home's first command, where an
    // awaited call per file would add a trip through Deno's thread pool each.
    for (const [relPath, text] of Object.entries(BUNDLED_FILES)) {
      const path = join(staging, relPath);
      Deno.mkdirSync(dirname(path), { recursive: true });
      Deno.writeTextFileSync(path, text, { mode: relPath.endsWith(".py") ? 0o755 : 0o644 });
    }
    Deno.writeTextFileSync(join(staging, COMPLETE_MARKER), `${VERSION} ${BUNDLED_HASH}\n`);
    const moveAside = async () => {
      // Moved aside, then removed: never removed in place, where another process may be
      // renaming its own copy in.
      const aside = `${root}.old-${crypto.randomUUID().slice(0, 8)}`;
      await Deno.rename(root, aside).catch(() => {});
      await removeIfExists(aside);
    };
    if (replace) await moveAside();
    try {
      await Deno.rename(staging, root);
    } catch (error) {
      // Another process finished first: its copy is identical (and verified before use),
      // and others may be reading it already, so it stays.
      if (await exists(join(root, COMPLETE_MARKER))) return;
      // A folder without the marker (an interrupted copy of an older version): replace it.
      if (!(await exists(root))) throw error;
      await moveAside();
      await Deno.rename(staging, root).catch(async (again) => {
        if (!(await exists(join(root, COMPLETE_MARKER)))) throw again;
      });
    }
  } finally {
    await removeIfExists(staging);
  }
}

export function bundledSkillNames(): string[] {
  return [...BUNDLED_NAMES];
}
