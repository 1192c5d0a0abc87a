/**
 * Which installed skill a name means for `skills trust`, `untrust` and `remove`, and what a
 * trust decision is about. Trust records: approval of an installed skill bound to the digest
 * of its files. `trust` hashes the files afresh (never from the cache, currentDigest here); a
 * Change records the digest and re-primes the stat-keyed digest cache that `assertRunnable`
 * uses (commit.ts), or withdraws the approval. A removal is a Change too (change.ts,
 * commit.ts): under the registry lock each directory is renamed aside into `.trash` first,
 * then the entry is dropped; the files are deleted after the lock is released. An
 * interruption therefore never leaves an entry without files (recovery puts the directory
 * back while the entry exists) nor files without an entry.
 */

import { SkillError } from "../../core/errors.ts";
import { canonicalSkillName } from "../../core/names.ts";
import { findEntry, type RegistryEntry } from "../../core/records/registry.ts";
import { bundledSkillNames } from "../catalog/bundled.ts";
import { computeDigest } from "../trust/file_hashes.ts";
import { readRegistry } from "../store/registry.ts";
import { assertManaged } from "./update_installed.ts";
import { type InspectResult, inspectSkillDir } from "../catalog/loader.ts";

type TrustTarget =
  | { kind: "bundled"; canonical: string }
  | { kind: "installed"; entry: RegistryEntry };

/** Looks a name up in the registry; bundled skills are reported, unknown names throw. */
export async function trustTarget(home: string, name: string): Promise<TrustTarget> {
  const canonical = canonicalSkillName(name);
  const entry = findEntry(await readRegistry(home), canonical);
  if (entry !== undefined) {
    assertManaged(home, entry);
    return { kind: "installed", entry };
  }
  if (bundledSkillNames().includes(canonical)) return { kind: "bundled", canonical };
  throw new SkillError("not_found", `Skill '${canonical}' is not installed`, {
    hint: "Run `skills list` to see the installed skills",
  });
}

/** The digest of an installed skill's files, hashed from scratch. */
export async function currentDigest(entry: RegistryEntry): Promise<string> {
  try {
    return await computeDigest(entry.installed_path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new SkillError(
        "not_found",
        `Skill '${entry.name_canonical}' has no files at ${entry.installed_path}`,
        {
          hint: "Run `skills check --repair`, then install it again",
        },
      );
    }
    throw error;
  }
}

/**
 * A skill's folder read in validation mode before anyone trusts it, in either scope: a skill
 * with errors is refused (`invalid_manifest`, every error named), nothing recorded.
 */
export async function inspectForTrust(name: string, dir: string): Promise<InspectResult> {
  const inspected = await inspectSkillDir(dir);
  const errors = inspected.diagnostics.filter((d) => d.level === "error");
  if (errors.length > 0) {
    throw new SkillError(
      "invalid_manifest",
      `Cannot trust skill '${name}': ${errors.map((e) => e.message).join("; ")}`,
      { hint: `Run \`skills validate ${dir}\` for details` },
    );
  }
  return inspected;
}

/** The registry entries for `names` (any accepted spelling); bundled or unknown names throw. */
export async function entriesToRemove(
  home: string,
  names: readonly string[],
): Promise<RegistryEntry[]> {
  const registry = await readRegistry(home);
  const out: RegistryEntry[] = [];
  for (const name of names) {
    const canonical = canonicalSkillName(name);
    const entry = findEntry(registry, canonical);
    if (entry === undefined) {
      if (bundledSkillNames().includes(canonical)) {
        throw new SkillError(
          "permission_denied",
          `Cannot remove skill '${canonical}': it is bundled`,
          {
            hint: "Bundled skills ship with skills itself; deactivate it with AGENT_SKILLS instead",
          },
        );
      }
      throw new SkillError("not_found", `Cannot remove skill '${canonical}': it is not installed`, {
        hint: "Run `skills list` to see the installed skills",
      });
    }
    if (!out.includes(entry)) out.push(entry);
  }
  return out;
}
