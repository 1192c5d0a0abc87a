/**
 * The registry document (`$SKILLS_HOME/registry.json`): a versioned schema, entries
 * sorted by canonical name. The file is untrusted input, so it is validated field by
 * field with the core validation kit (not zod: the registry is read by every command,
 * and importing zod/mini alone costs 10-20 ms of start-up).
 */

import {
  array,
  boolean,
  formatIssue,
  nullable,
  number,
  object,
  oneOf,
  optional,
  string,
  type Validator,
} from "../manifest/validation.ts";

const REGISTRY_VERSION = 1;

/** The kinds of source records keep (`type` of a registry entry's or lock entry's source). */
export type SourceType = "git" | "local" | "oci" | "web" | "npm";

interface SkillSource {
  type: SourceType;
  /**
   * Clone URL for git, absolute path for local, `oci://registry/repository` for OCI, the site
   * or file URL for a website (`web`: its digest in `commit_sha`).
   */
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
  /**
   * Critical audit findings the user accepted with `--allow-risky` when installing or
   * updating this version (absent: none were found, or the entry predates audits).
   */
  allowed_risky?: AllowedRisky;
  /** The network grants approved with this version (`*`: any public host); absent before. */
  approved_network?: string[];
  /**
   * The scripts its `permissions.services` lets keep running (`skills run --background`),
   * approved with this version; absent when it declares none.
   */
  approved_services?: string[];
  /** Fields written by newer versions are kept, never dropped. */
  [extra: string]: unknown;
}

/** What `--allow-risky` accepted: when, under which audit rules, which findings. */
interface AllowedRisky {
  accepted_at: string;
  rules_version: string;
  /** `rule file:line` of each critical finding accepted. */
  findings: string[];
}

export interface Registry {
  version: number;
  skills: RegistryEntry[];
  [extra: string]: unknown;
}

const text = string();
const nullableText = nullable(text);

/** Unknown keys are kept (the default): fields a newer version wrote survive a rewrite. */
const SOURCE: Validator<SkillSource> = object({
  type: oneOf("git", "local", "oci", "web", "npm"),
  url: text,
  subpath: text,
});

const ENTRY: Validator<RegistryEntry> = object({
  name: text,
  name_canonical: text,
  source: SOURCE,
  commit_sha: nullableText,
  branch: nullableText,
  tag: nullableText,
  ref: nullableText,
  installed_path: text,
  trusted: boolean(),
  trusted_digest: nullableText,
  installed_at: text,
  updated_at: text,
  approved_network: optional(array(text)),
  approved_services: optional(array(text)),
  allowed_risky: optional(object({
    accepted_at: text,
    rules_version: text,
    findings: array(text),
  })),
});

const REGISTRY: Validator<Registry> = object({ version: number(), skills: array(ENTRY) });

export function emptyRegistry(): Registry {
  return { version: REGISTRY_VERSION, skills: [] };
}

type ParseRegistryResult =
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
  const problem = REGISTRY(data);
  if (problem !== undefined) {
    // "does not match the registry schema at skills.0.name: expected string, got nothing"
    return { ok: false, reason: formatIssue(problem, "does not match the registry schema") };
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

function sortEntries(entries: readonly RegistryEntry[]): RegistryEntry[] {
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

/** The `approved_services` a registry entry keeps of `permissions.services` (none: absent). */
export function approvedServices(
  services: readonly string[] | undefined,
): { approved_services?: string[] } {
  return services === undefined || services.length === 0
    ? {}
    : { approved_services: [...services] };
}
