/**
 * Trust records: approval of an installed skill bound to the digest of its files. `trust`
 * hashes the files afresh (never from the cache), records the digest and re-primes the
 * size+mtime cache that `assertRunnable` uses; `untrust` withdraws the approval.
 */

import { join } from "../os/paths.ts";
import { SkillError } from "../../core/errors.ts";
import { canonicalSkillName } from "../../core/names.ts";
import { findEntry, type RegistryEntry, upsertEntry } from "../../core/registry_model.ts";
import { bundledSkillNames } from "../catalog/bundled.ts";
import { cachedDigest, computeDigest } from "../trust/file_hashes.ts";
import { removeIfExists } from "../os/fs.ts";
import { readRegistry, updateRegistry } from "../store/registry.ts";
import { recoverStale } from "../store/staging.ts";
import { digestCachePath } from "../trust/gate.ts";
import { assertManaged } from "./update.ts";

export type TrustTarget =
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

async function changeEntry(
  home: string,
  planned: RegistryEntry,
  change: (entry: RegistryEntry) => RegistryEntry,
): Promise<RegistryEntry> {
  return await updateRegistry(home, async (registry) => {
    await recoverStale(home, registry);
    const current = findEntry(registry, planned.name_canonical);
    if (current === undefined || current.updated_at !== planned.updated_at) {
      throw new SkillError(
        "conflict",
        `Skill '${planned.name_canonical}' was changed by another command meanwhile`,
        { hint: "Run the command again" },
      );
    }
    const next = change(current);
    return { registry: upsertEntry(registry, next), result: next };
  });
}

/**
 * Records approval of `digest` (computed by the caller and shown to the user). The digest
 * cache is rebuilt from scratch so the next run verifies against fresh hashes.
 */
export async function trustSkill(
  home: string,
  entry: RegistryEntry,
  digest: string,
): Promise<RegistryEntry> {
  const next = await changeEntry(home, entry, (current) => ({
    ...current,
    trusted: true,
    trusted_digest: digest,
  }));
  const cache = digestCachePath(home, entry.name_canonical);
  await removeIfExists(cache).catch(() => {});
  await Deno.mkdir(join(home, ".cache"), { recursive: true }).catch(() => {});
  await cachedDigest(entry.installed_path, cache).catch(() => {});
  return next;
}

export async function untrustSkill(home: string, entry: RegistryEntry): Promise<RegistryEntry> {
  const next = await changeEntry(home, entry, (current) => ({
    ...current,
    trusted: false,
    trusted_digest: null,
  }));
  await removeIfExists(digestCachePath(home, entry.name_canonical)).catch(() => {});
  return next;
}
