/**
 * The registry document (`$SKILLS_HOME/registry.json`): a versioned schema, entries
 * sorted by canonical name. The file is untrusted input, so it is validated field by
 * field. (A hand-written check rather than zod: the registry is read by every command,
 * and importing zod/mini alone costs 10-20 ms of start-up.)
 */

export const REGISTRY_VERSION = 1;

export interface SkillSource {
  type: "git" | "local";
  /** Clone URL for git, absolute path for local. */
  url: string;
  /** Path of the skill inside the repository ("" for the root). */
  subpath: string;
  [extra: string]: unknown;
}

export interface RegistryEntry {
  name: string;
  name_canonical: string;
  source: SkillSource;
  commit_sha: string | null;
  branch: string | null;
  tag: string | null;
  ref: string | null;
  installed_path: string;
  trusted: boolean;
  trusted_digest: string | null;
  installed_at: string;
  updated_at: string;
  /** Fields written by newer versions are kept, never dropped. */
  [extra: string]: unknown;
}

export interface Registry {
  version: number;
  skills: RegistryEntry[];
  [extra: string]: unknown;
}

type Check = (value: unknown) => string | undefined;

const isString: Check = (v) =>
  typeof v === "string" ? undefined : `expected string, got ${kind(v)}`;
const isNullableString: Check = (v) =>
  v === null || typeof v === "string" ? undefined : `expected string or null, got ${kind(v)}`;
const isBoolean: Check = (v) =>
  typeof v === "boolean" ? undefined : `expected boolean, got ${kind(v)}`;

function kind(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "nothing";
  return Array.isArray(value) ? "array" : typeof value;
}

/** A JSON object (not null, not an array). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

const SOURCE_FIELDS: Record<string, Check> = {
  type: (v) =>
    v === "git" || v === "local"
      ? undefined
      : `expected "git" or "local", got ${JSON.stringify(v)}`,
  url: isString,
  subpath: isString,
};

const ENTRY_FIELDS: Record<string, Check> = {
  name: isString,
  name_canonical: isString,
  source: (v) => isPlainObject(v) ? undefined : `expected object, got ${kind(v)}`,
  commit_sha: isNullableString,
  branch: isNullableString,
  tag: isNullableString,
  ref: isNullableString,
  installed_path: isString,
  trusted: isBoolean,
  trusted_digest: isNullableString,
  installed_at: isString,
  updated_at: isString,
};

const SOURCE_CHECKS = Object.entries(SOURCE_FIELDS);
const ENTRY_CHECKS = Object.entries(ENTRY_FIELDS);

/** The first problem of `value`, located under `path()` (built only for a problem). */
function checkFields(
  value: Record<string, unknown>,
  checks: readonly [string, Check][],
  path: () => string,
): string | undefined {
  for (const [key, check] of checks) {
    const problem = check(value[key]);
    if (problem !== undefined) return `at ${path()}.${key}: ${problem}`;
  }
  return undefined;
}

/** Why `data` is not a registry document, or undefined when it is one. */
function registryProblem(data: unknown): string | undefined {
  if (!isPlainObject(data)) return `: expected an object, got ${kind(data)}`;
  if (typeof data.version !== "number") {
    return ` at version: expected number, got ${kind(data.version)}`;
  }
  if (!Array.isArray(data.skills)) return ` at skills: expected array, got ${kind(data.skills)}`;
  for (const [index, entry] of data.skills.entries()) {
    if (!isPlainObject(entry)) return ` at skills.${index}: expected object, got ${kind(entry)}`;
    const problem = checkFields(entry, ENTRY_CHECKS, () => `skills.${index}`) ??
      checkFields(
        entry.source as Record<string, unknown>,
        SOURCE_CHECKS,
        () => `skills.${index}.source`,
      );
    if (problem !== undefined) return ` ${problem}`;
  }
  return undefined;
}

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
  const problem = registryProblem(data);
  if (problem !== undefined) {
    return { ok: false, reason: `does not match the registry schema${problem}` };
  }
  const registry = data as Registry;
  if (registry.version > REGISTRY_VERSION) {
    return {
      ok: false,
      reason:
        `was written by a newer skills (schema version ${registry.version}, this one reads ${REGISTRY_VERSION})`,
    };
  }
  const seen = new Set<string>();
  for (const entry of registry.skills) {
    if (seen.has(entry.name_canonical)) {
      return { ok: false, reason: `lists '${entry.name_canonical}' twice` };
    }
    seen.add(entry.name_canonical);
  }
  return { ok: true, registry: { ...registry, skills: sortEntries(registry.skills) } };
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
