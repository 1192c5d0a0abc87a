/**
 * The SKILL.md manifest: seed-000 fields and Agent Skills spec fields, validated in
 * two levels. Default mode accepts everything the seeds allow and warns about
 * non-portable choices; strict mode applies the Agent Skills spec exactly.
 */

import {
  decodeSkillMd,
  FrontMatterError,
  loadFrontMatterYaml,
  splitSkillMd,
  topLevelKeyLine,
} from "./frontmatter.ts";
import { publishedSkillKey, skillNameProblem } from "./names.ts";
import { compareSemver, parseSemver } from "./semver.ts";
import type { NetPolicy } from "../policy/net_grants.ts";
import { array, isPlainObject, matches, string } from "./validate.ts";
import { describeType, readSeedFields, type SeedLimits } from "./seed_fields.ts";
import { AGENT_KEYS, type Invocation, readInvocation } from "./agent_fields.ts";

export interface Manifest {
  name: string;
  description: string;
  version?: string;
  author?: string;
  repository?: string;
  license?: string;
  compatibility?: string;
  /** Normalised from the spec's space-delimited string (or a YAML list). */
  allowedTools?: string[];
  metadata?: Record<string, string>;
  minAgentVersion?: string;
  maxAgentVersion?: string;
  /** `module:Class` entries. */
  toolsets: string[];
  /** Explicit script list (canonical `x.py`), or undefined to auto-discover. */
  scripts?: string[];
  scriptsIgnore: string[];
  /** `permissions.env` patterns, e.g. `KALSHI_*`. */
  envPatterns: string[];
  /** `permissions.network`: `true` (any public host) or the declared hosts; absent: none. */
  network?: NetPolicy;
  limits?: SeedLimits;
  /** Fields of the agents that run skills (Claude Code, Codex): see agent_fields.ts. */
  invocation?: Invocation;
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
}

const SPEC_KEYS = new Set([
  "name",
  "description",
  "license",
  "compatibility",
  "allowed-tools",
  "metadata",
]);
const SEED_KEYS = new Set([
  "version",
  "author",
  "repository",
  "min_agent_base_version",
  "max_agent_base_version",
  "toolsets",
  "scripts",
  "scripts_ignore",
  "permissions",
  "limits",
  "allowed_tools",
]);
const SPEC_NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;

// Shapes come from the core kit; the diagnostics around them stay the manifest's own: every
// problem at once (the kit stops at the first), each on its key's line, worded in YAML terms
// ("a list", "a mapping"), error or warning depending on the mode.
const TEXT = string();
const TEXT_LIST = array(TEXT);

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.level === "error");
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
    const data = await loadFrontMatterYaml(split.yaml, split.yamlLine);
    const manifest = validateFrontMatter(data, {
      ...options,
      file,
      lineOf: (key) => topLevelKeyLine(split.yaml, key, split.yamlLine),
      diagnostics,
      asWritten: await frontMatterAsWritten(data, split.yaml, split.yamlLine),
    });
    const name = isPlainObject(data) ? data.name : undefined;
    const declared = typeof name === "string" ? { declaredName: name } : {};
    return { manifest, ...declared, body: split.body, bodyLine: split.bodyLine, diagnostics };
  } catch (error) {
    if (error instanceof FrontMatterError) {
      diagnostics.push(
        error.line === undefined
          ? { level: "error", file, message: error.message }
          : { level: "error", file, line: error.line, message: error.message },
      );
      return { manifest: undefined, body: "", bodyLine: 1, diagnostics };
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
 * Length in characters (Unicode code points), as the Agent Skills specification and its
 * reference validator count: an emoji is one character, not two UTF-16 units.
 */
export function characterCount(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by a low one is one code point.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
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

/** Validates parsed front matter; returns the manifest when there are no errors. */
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
  const missing = ["name", "description"].filter((k) => fm[k] === undefined || fm[k] === null);
  if (missing.length > 0) error(undefined, `missing required field(s): ${missing.join(", ")}`);

  const str = (key: string, max?: number): string | undefined => {
    const value = fm[key];
    if (value === undefined || value === null) return undefined;
    if (!matches(TEXT, value)) {
      error(key, `'${key}' must be a string, got ${describeType(value)}`);
      return undefined;
    }
    const length = max === undefined ? 0 : characterCount(value);
    if (max !== undefined && length > max) {
      error(key, `'${key}' is ${length} characters long (max ${max})`);
    }
    return value;
  };
  /** Default mode: a scalar where text is expected is kept as written, with a warning. */
  const lenientText = (key: string): string | undefined => {
    const value = fm[key];
    if (value === undefined || value === null) return undefined;
    if (matches(TEXT, value)) return value;
    if (typeof value === "number" || typeof value === "boolean") {
      const written = check.asWritten?.[key];
      warn(key, `'${key}' should be a string, got ${describeType(value)}; read as text`);
      return typeof written === "string" ? written : String(value);
    }
    warn(key, `'${key}' must be a string, got ${describeType(value)}; ignored`);
    return undefined;
  };

  // name (published skills sometimes pad it: read it trimmed, and say so)
  let name = str("name");
  if (name !== undefined && name !== name.trim() && !strict && name.trim() !== "") {
    warn("name", `'name' has surrounding spaces; read as '${name.trim()}'`);
    name = name.trim();
  }
  if (name !== undefined) {
    if (strict) {
      if (name.length < 1 || name.length > 64 || !SPEC_NAME.test(name)) {
        error(
          "name",
          `'name' must be 1-64 lower-case letters, digits and single hyphens (got '${name}')`,
        );
      }
      if (check.dirName !== undefined && check.dirName !== name) {
        error("name", `'name' (${name}) must equal the directory name (${check.dirName})`);
      }
    } else {
      const problem = skillNameProblem(name);
      const installedAs = problem === undefined ? undefined : publishedSkillKey(name);
      if (installedAs !== undefined) {
        // Published names with spaces or a leading '-' are common; the skill is still usable
        // under the name derived from it, and the user is told both.
        warn(
          "name",
          `'name' '${name}' is not a skill identifier (${problem}); it is installed and called as '${installedAs}'`,
        );
      } else if (problem !== undefined) error("name", `'name' ${problem} (got '${name}')`);
      else if (!SPEC_NAME.test(name)) {
        warn("name", `'name' is not portable: the Agent Skills spec wants lower-case kebab-case`);
      }
      if (check.dirName !== undefined && check.dirName !== name) {
        warn("name", `'name' (${name}) differs from the directory name (${check.dirName})`);
      }
    }
  }

  // description
  const description = str("description", strict ? 1024 : undefined);
  if (description !== undefined && !strict && characterCount(description) > 1024) {
    warn(
      "description",
      `'description' is ${
        characterCount(description)
      } characters long (max 1024 in the specification; agents may cut it)`,
    );
  }
  if (description !== undefined) {
    if (description.trim() === "") error("description", "'description' must not be empty");
    else if (!strict && characterCount(description) > 500 && characterCount(description) <= 1024) {
      warn(
        "description",
        `'description' is ${
          characterCount(description)
        } characters; keep it under 500 for a small context`,
      );
    }
  }

  const compatibility = str("compatibility", 500);
  const license = strict ? str("license") : lenientText("license");

  // allowed-tools
  let allowedTools: string[] | undefined;
  const allowedKey = fm["allowed-tools"] !== undefined ? "allowed-tools" : "allowed_tools";
  const allowedRaw = fm[allowedKey];
  if (allowedRaw !== undefined && allowedRaw !== null) {
    if (matches(TEXT, allowedRaw)) {
      allowedTools = allowedRaw.split(/\s+/).filter((t) => t !== "");
    } else if (matches(TEXT_LIST, allowedRaw)) {
      if (strict) error(allowedKey, "'allowed-tools' must be a space-delimited string");
      else {warn(
          allowedKey,
          "'allowed-tools' as a list is not portable; use a space-delimited string",
        );}
      allowedTools = allowedRaw;
    } else {
      error(
        allowedKey,
        `'allowed-tools' must be a space-delimited string, got ${describeType(allowedRaw)}`,
      );
    }
  }

  // metadata
  let metadata: Record<string, string> | undefined;
  const metaRaw = fm.metadata;
  if (metaRaw !== undefined && metaRaw !== null) {
    if (!isPlainObject(metaRaw)) {
      error("metadata", `'metadata' must be a mapping of strings, got ${describeType(metaRaw)}`);
    } else {
      metadata = {};
      for (const [k, v] of Object.entries(metaRaw)) {
        if (matches(TEXT, v)) metadata[k] = v;
        else {
          const message = `'metadata.${k}' must be a string, got ${describeType(v)}`;
          if (strict) error("metadata", message);
          else {
            warn("metadata", `${message} (not portable)`);
            if (v !== null && typeof v !== "object") {
              // Keep the value as written: `version: 1.0` is "1.0", not "1".
              const meta = check.asWritten?.metadata;
              const written = isPlainObject(meta) ? meta[k] : undefined;
              metadata[k] = typeof written === "string" ? written : String(v);
            }
          }
        }
      }
    }
  }

  // unknown / non-spec keys
  for (const key of Object.keys(fm)) {
    if (SPEC_KEYS.has(key)) continue;
    if (strict) {
      error(
        key,
        `'${key}' is not an Agent Skills spec field (allowed: ${[...SPEC_KEYS].join(", ")})`,
      );
    } else if (!SEED_KEYS.has(key) && !AGENT_KEYS.has(key)) {
      warn(key, `unknown field '${key}' is ignored`);
    }
  }
  if (strict && allowedKey === "allowed_tools" && allowedRaw !== undefined) {
    // already reported as a non-spec key above
  }

  // seed fields (validated in both modes; strict already rejected their presence)
  const version = strict ? semverField("version") : lenientVersion();
  /** Default mode: a version that is not semver is kept as written, with a warning. */
  function lenientVersion(): string | undefined {
    const value = lenientText("version");
    if (value !== undefined && parseSemver(value) === undefined) {
      warn(
        "version",
        `'version' is not a semver version such as 1.0.0 (got '${value}'); kept as text`,
      );
    }
    return value;
  }
  const minAgentVersion = semverField("min_agent_base_version");
  const maxAgentVersion = semverField("max_agent_base_version");
  function semverField(key: string): string | undefined {
    const value = fm[key];
    if (value === undefined || value === null) return undefined;
    if (!matches(TEXT, value)) {
      error(
        key,
        `'${key}' must be a semver string such as "1.0.0" (quote it), got ${describeType(value)}`,
      );
      return undefined;
    }
    if (parseSemver(value) === undefined) {
      error(key, `'${key}' must be a semver version such as 1.0.0 (got '${value}')`);
      return undefined;
    }
    return value;
  }
  if (check.cliVersion !== undefined) {
    const cli = parseSemver(check.cliVersion);
    const min = minAgentVersion === undefined ? undefined : parseSemver(minAgentVersion);
    const max = maxAgentVersion === undefined ? undefined : parseSemver(maxAgentVersion);
    if (cli && min && compareSemver(cli, min) < 0) {
      error(
        "min_agent_base_version",
        `requires skills ${minAgentVersion} or newer (this is ${check.cliVersion})`,
      );
    }
    if (cli && max && compareSemver(cli, max) > 0) {
      error(
        "max_agent_base_version",
        `supports skills up to ${maxAgentVersion} (this is ${check.cliVersion})`,
      );
    }
  }
  const author = str("author");
  const repository = str("repository");

  // The seed's fields for running code (toolsets, scripts, permissions, limits).
  const { toolsets, scripts, scriptsIgnore, envPatterns, network, limits } = readSeedFields(
    fm,
    metadata,
    { error, warn },
  );

  if (
    diagnostics.some((d) => d.level === "error") || name === undefined || description === undefined
  ) {
    return undefined;
  }
  const manifest: Manifest = { name, description, toolsets, scriptsIgnore, envPatterns };
  const invocation = readInvocation(fm, (key, message) => warn(key, message));
  if (invocation !== undefined) manifest.invocation = invocation;
  if (version !== undefined) manifest.version = version;
  if (author !== undefined) manifest.author = author;
  if (repository !== undefined) manifest.repository = repository;
  if (license !== undefined) manifest.license = license;
  if (compatibility !== undefined) manifest.compatibility = compatibility;
  if (allowedTools !== undefined) manifest.allowedTools = allowedTools;
  if (metadata !== undefined) manifest.metadata = metadata;
  if (minAgentVersion !== undefined) manifest.minAgentVersion = minAgentVersion;
  if (maxAgentVersion !== undefined) manifest.maxAgentVersion = maxAgentVersion;
  if (scripts !== undefined) manifest.scripts = scripts;
  if (limits !== undefined) manifest.limits = limits;
  if (network !== undefined) manifest.network = network;
  return manifest;
}

/** One line per diagnostic: `path:line: error: message`. */
export function formatDiagnostic(d: Diagnostic): string {
  const where = d.line === undefined ? d.file : `${d.file}:${d.line}`;
  return `${where}: ${d.level}: ${d.message}`;
}
