/**
 * The registry document (`$SKILLS_HOME/registry.json`): a versioned schema, entries
 * sorted by canonical name. Parsed with zod because the file is untrusted input.
 */

import * as z from "zod/mini";

export const REGISTRY_VERSION = 1;

const nullableString = z.nullable(z.string());

export const SourceSchema = z.looseObject({
  type: z.enum(["git", "local"]),
  /** Clone URL for git, absolute path for local. */
  url: z.string(),
  /** Path of the skill inside the repository ("" for the root). */
  subpath: z.string(),
});

export const EntrySchema = z.looseObject({
  name: z.string(),
  name_canonical: z.string(),
  source: SourceSchema,
  commit_sha: nullableString,
  branch: nullableString,
  tag: nullableString,
  ref: nullableString,
  installed_path: z.string(),
  trusted: z.boolean(),
  trusted_digest: nullableString,
  installed_at: z.string(),
  updated_at: z.string(),
});

export const RegistrySchema = z.looseObject({
  version: z.number(),
  skills: z.array(EntrySchema),
});

export type SkillSource = z.infer<typeof SourceSchema>;
export type RegistryEntry = z.infer<typeof EntrySchema>;
export type Registry = z.infer<typeof RegistrySchema>;

export function emptyRegistry(): Registry {
  return { version: REGISTRY_VERSION, skills: [] };
}

export type ParseRegistryResult =
  | { ok: true; registry: Registry }
  | { ok: false; reason: string };

/** Validates registry JSON text. Never guesses: anything unexpected is a reason. */
export function parseRegistry(text: string): ParseRegistryResult {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: `is not valid JSON (${(error as Error).message})` };
  }
  const parsed = RegistrySchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? ` at ${issue.path.join(".")}` : "";
    return {
      ok: false,
      reason: `does not match the registry schema${where}: ${issue?.message ?? "invalid"}`,
    };
  }
  if (parsed.data.version > REGISTRY_VERSION) {
    return {
      ok: false,
      reason:
        `was written by a newer skills (schema version ${parsed.data.version}, this one reads ${REGISTRY_VERSION})`,
    };
  }
  const seen = new Set<string>();
  for (const entry of parsed.data.skills) {
    if (seen.has(entry.name_canonical)) {
      return { ok: false, reason: `lists '${entry.name_canonical}' twice` };
    }
    seen.add(entry.name_canonical);
  }
  return { ok: true, registry: { ...parsed.data, skills: sortEntries(parsed.data.skills) } };
}

export function sortEntries(entries: readonly RegistryEntry[]): RegistryEntry[] {
  return [...entries].sort((a, b) =>
    a.name_canonical < b.name_canonical ? -1 : a.name_canonical > b.name_canonical ? 1 : 0
  );
}

export function serializeRegistry(registry: Registry): string {
  return JSON.stringify(
    { ...registry, version: REGISTRY_VERSION, skills: sortEntries(registry.skills) },
    null,
    2,
  ) + "\n";
}

export function findEntry(registry: Registry, canonical: string): RegistryEntry | undefined {
  return registry.skills.find((e) => e.name_canonical === canonical);
}

/** Returns a new registry with `entry` added or replaced. */
export function upsertEntry(registry: Registry, entry: RegistryEntry): Registry {
  const skills = registry.skills.filter((e) => e.name_canonical !== entry.name_canonical);
  skills.push(entry);
  return { ...registry, skills: sortEntries(skills) };
}

export function removeEntry(registry: Registry, canonical: string): Registry {
  return { ...registry, skills: registry.skills.filter((e) => e.name_canonical !== canonical) };
}
