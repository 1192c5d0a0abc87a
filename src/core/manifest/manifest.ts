/**
 * The SKILL.md manifest: seed-000 fields and Agent Skills spec fields, validated in
 * two levels. Default mode accepts everything the seeds allow and warns about
 * non-portable choices; strict mode applies the Agent Skills spec exactly.
 */

import {
  decodeSkillMd,
  FrontMatterError,
  loadFrontMatterYaml,
  quoteFix,
  quoteValueAt,
  splitSkillMd,
  topLevelKeyLine,
} from "./frontmatter.ts";
import type { NetPolicy } from "../policy/net_grants.ts";
import { isPlainObject } from "./validation.ts";
import {
  EXTENSION_KEYS,
  MANIFEST_FIELDS,
  type ManifestField,
  SPEC_KEYS,
  type TableFields,
} from "./manifest_fields.ts";
import { describeType, readSeedFields, type SeedLimits } from "./seed_fields.ts";
import { AGENT_KEYS, type Invocation, readInvocation, readWhenToUse } from "./agent_fields.ts";

/** Counted as the specification counts; re-exported for callers of the manifest module. */
export { characterCount } from "./manifest_fields.ts";

export interface Manifest extends TableFields {
  name: string;
  description: string;
  /** `module:Class` entries. */
  toolsets: string[];
  /** Explicit script list (canonical `x.py`), or undefined to auto-discover. */
  scripts?: string[];
  scriptsIgnore: string[];
  /** `permissions.env` patterns, e.g. `KALSHI_*`. */
  envPatterns: string[];
  /** `permissions.network`: `true` (any public host) or the declared hosts; absent: none. */
  network?: NetPolicy;
  /**
   * `permissions.services`: scripts the skill declares may keep running as services (`skills
   * run --background`), as written (without `scripts/`); absent: none.
   */
  services?: string[];
  limits?: SeedLimits;
  /** Fields of the agents that run skills (Claude Code, Codex): see agent_fields.ts. */
  invocation?: Invocation;
  /** `when_to_use` (Claude Code's): when to start the skill, besides the description. */
  whenToUse?: string;
}

export interface Diagnostic {
  level: "error" | "warning";
  file: string;
  line?: number;
  message: string;
}

export interface ValidationOptions {
  strict?: boolean;
  /** The skill's directory name; strict mode requires `name` to equal it. */
  dirName?: string;
  /** The CLI version used for min/max version gating. */
  cliVersion?: string;
}

export interface ParsedSkillMd {
  manifest: Manifest | undefined;
  /** The `name` as written, when it is text — known even when the manifest is invalid. */
  declaredName?: string;
  body: string;
  bodyLine: number;
  diagnostics: Diagnostic[];
  /**
   * The file has no front matter at all (it does not open with `---`): a document that is
   * named SKILL.md, such as a fragment a build merges into skills, rather than a broken skill.
   */
  noFrontMatter?: true;
  /**
   * Its front matter names neither a `name` nor a `description` (richfrem's generated wiki
   * keeps a page `skill.md` with `concept: skill`): a document that claims no skill, rather
   * than a skill missing one of its two fields.
   */
  unnamed?: true;
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.level === "error");
}

/** At most this many values holding `: ` are read as text in one front matter. */
const MAX_UNQUOTED_COLONS = 32;

/**
 * The front matter's data. Outside strict mode, a plain value holding `: ` — the most common
 * broken front matter in published skills (tuyenivt's 53 Rails and Spring skills, Gamaroff's
 * develop-story), which Claude Code reads and Codex and the skills CLI skip — is read as the
 * one string its author meant, with a warning that names the key and the fix; strict mode
 * refuses it with that message (FrontMatterError).
 */
async function loadLeniently(
  split: { yaml: string; yamlLine: number },
  file: string,
  options: ValidationOptions,
  diagnostics: Diagnostic[],
): Promise<{ data: unknown; yaml: string }> {
  let yaml = split.yaml;
  for (let recovered = 0;; recovered++) {
    try {
      return { data: await loadFrontMatterYaml(yaml, split.yamlLine), yaml };
    } catch (error) {
      const colon = error instanceof FrontMatterError ? error.unquotedColon : undefined;
      if (options.strict || colon === undefined || recovered >= MAX_UNQUOTED_COLONS) throw error;
      const next = quoteValueAt(yaml, colon.yamlLine);
      if (next === yaml) throw error;
      yaml = next;
      diagnostics.push({
        level: "warning",
        file,
        line: colon.yamlLine + split.yamlLine,
        message: `the value of '${colon.key}' holds ': ' unquoted, which YAML refuses: read as ` +
          `text here, but Codex and other agents skip the skill — ${quoteFix(colon.key)}`,
      });
    }
  }
}

/** Parses and validates SKILL.md bytes. Never throws for bad content: problems become diagnostics. */
export async function parseSkillMd(
  bytes: Uint8Array,
  file: string,
  options: ValidationOptions = {},
  complete = true,
): Promise<ParsedSkillMd> {
  const diagnostics: Diagnostic[] = [];
  try {
    const text = decodeSkillMd(bytes);
    const split = splitSkillMd(text, complete);
    const { data, yaml } = await loadLeniently(split, file, options, diagnostics);
    const manifest = validateFrontMatter(data, {
      ...options,
      file,
      lineOf: (key) => topLevelKeyLine(yaml, key, split.yamlLine),
      diagnostics,
      asWritten: await frontMatterAsWritten(data, yaml, split.yamlLine),
    });
    const name = isPlainObject(data) ? data.name : undefined;
    const declared = typeof name === "string" ? { declaredName: name } : {};
    const claimsNone = !isPlainObject(data) || (!("name" in data) && !("description" in data));
    const unnamed = manifest === undefined && claimsNone ? { unnamed: true as const } : {};
    return {
      manifest,
      ...declared,
      ...unnamed,
      body: split.body,
      bodyLine: split.bodyLine,
      diagnostics,
    };
  } catch (error) {
    if (error instanceof FrontMatterError) {
      diagnostics.push(
        error.line === undefined
          ? { level: "error", file, message: error.message }
          : { level: "error", file, line: error.line, message: error.message },
      );
      const absent = error.absent ? { noFrontMatter: true as const } : {};
      return { manifest: undefined, body: "", bodyLine: 1, diagnostics, ...absent };
    }
    throw error;
  }
}

interface Checker extends ValidationOptions {
  file: string;
  lineOf: (key: string) => number;
  diagnostics: Diagnostic[];
  /** The front matter with every scalar as written (`1.0`, not 1), when it has typed values. */
  asWritten?: Record<string, unknown> | undefined;
}

/**
 * The front matter with its scalars as written, read again (all scalars as text) only when
 * a value kept as text was typed by YAML (`version: 1.0`, `license: 2`, metadata numbers) —
 * the rare case that needs it.
 */
async function frontMatterAsWritten(
  data: unknown,
  yaml: string,
  firstLine: number,
): Promise<Record<string, unknown> | undefined> {
  if (!isPlainObject(data)) return undefined;
  const typed = (v: unknown) => typeof v === "number" || typeof v === "boolean";
  const metadata = isPlainObject(data.metadata) ? Object.values(data.metadata) : [];
  if (![data.version, data.license, ...metadata].some(typed)) return undefined;
  const asText = await loadFrontMatterYaml(yaml, firstLine, { scalarsAsText: true });
  return isPlainObject(asText) ? asText : undefined;
}

/**
 * Validates parsed front matter, row by row of the field table (manifest_fields.ts), then
 * the seed's fields for running code; returns the manifest when there are no errors.
 */
export function validateFrontMatter(data: unknown, check: Checker): Manifest | undefined {
  const { file, diagnostics, strict = false } = check;
  const report = (level: "error" | "warning", key: string | undefined, message: string) => {
    diagnostics.push({ level, file, line: key === undefined ? 2 : check.lineOf(key), message });
  };
  const error = (key: string | undefined, message: string) => report("error", key, message);
  const warn = (key: string | undefined, message: string) => report("warning", key, message);

  if (!isPlainObject(data)) {
    error(undefined, `front matter must be a YAML mapping, got ${describeType(data)}`);
    return undefined;
  }
  const fm = data;
  const absent = (key: string) => fm[key] === undefined || fm[key] === null;
  const missing = MANIFEST_FIELDS.filter((f) => f.required && absent(f.key)).map((f) => f.key);
  if (missing.length > 0) error(undefined, `missing required field(s): ${missing.join(", ")}`);

  const read: TableFields = {};
  const context = { fm, asWritten: check.asWritten, dirName: check.dirName, read, error, warn };
  const readRows = (origin: ManifestField["origin"]) => {
    for (const field of MANIFEST_FIELDS.filter((f) => f.origin === origin)) {
      const key = [field.key, ...field.aliases ?? []].find((k) => fm[k] !== undefined) ??
        field.key;
      const value = fm[key];
      if (value === undefined || value === null) continue;
      const rule = strict ? field.strict : field.lenient;
      const kept = rule(value, key, { ...context, cliVersion: check.cliVersion });
      if (kept !== undefined) Object.assign(read, { [field.property]: kept });
    }
  };
  readRows("spec");
  reportUnknownKeys(fm, strict, error, warn);
  readRows("extension");

  // The seed's fields for running code (toolsets, scripts, permissions, limits).
  const { toolsets, scripts, scriptsIgnore, envPatterns, network, services, limits } =
    readSeedFields(
      fm,
      read.metadata,
      { error, warn },
    );

  const { name, description } = read;
  if (hasErrors(diagnostics) || name === undefined || description === undefined) {
    return undefined;
  }
  const manifest: Manifest = { name, description, toolsets, scriptsIgnore, envPatterns };
  const invocation = readInvocation(fm, (key, message) => warn(key, message));
  if (invocation !== undefined) manifest.invocation = invocation;
  const whenToUse = readWhenToUse(fm, (key, message) => warn(key, message));
  if (whenToUse !== undefined) manifest.whenToUse = whenToUse;
  // In the order manifests always had (JSON output shows them), then any newer row's.
  const keys = new Set([...TABLE_ORDER, ...Object.keys(read) as (keyof TableFields)[]]);
  for (const key of keys) {
    if (read[key] !== undefined) Object.assign(manifest, { [key]: read[key] });
  }
  if (scripts !== undefined) manifest.scripts = scripts;
  if (limits !== undefined) manifest.limits = limits;
  if (network !== undefined) manifest.network = network;
  if (services !== undefined) manifest.services = services;
  return manifest;
}

const TABLE_ORDER: readonly (keyof TableFields)[] = [
  "version",
  "author",
  "repository",
  "license",
  "compatibility",
  "allowedTools",
  "metadata",
  "minAgentVersion",
  "maxAgentVersion",
];

/** Strict mode refuses every key the spec lacks; default mode warns about unknown ones. */
function reportUnknownKeys(
  fm: Record<string, unknown>,
  strict: boolean,
  error: (key: string, message: string) => void,
  warn: (key: string, message: string) => void,
): void {
  for (const key of Object.keys(fm)) {
    if (SPEC_KEYS.includes(key)) continue;
    if (strict) {
      error(key, `'${key}' is not an Agent Skills spec field (allowed: ${SPEC_KEYS.join(", ")})`);
    } else if (!EXTENSION_KEYS.has(key) && !AGENT_KEYS.has(key)) {
      warn(key, `unknown field '${key}' is ignored`);
    }
  }
}

/** One line per diagnostic: `path:line: error: message`. */
export function formatDiagnostic(d: Diagnostic): string {
  const where = d.line === undefined ? d.file : `${d.file}:${d.line}`;
  return `${where}: ${d.level}: ${d.message}`;
}
