/**
 * The SKILL.md front matter fields as a table: one row per field, saying its key, what its
 * value must be, whether the Agent Skills specification or an extension (the seeds) defines
 * it, how strict mode and default (lenient) mode read it, and the message its main problem
 * gets. `validateFrontMatter` (manifest.ts) runs the rows in order; a new field is a new
 * row here (and, for the seed's fields for running code, seed_fields.ts).
 */

import { publishedSkillKey, skillNameProblem } from "../names.ts";
import { compareSemver, parseSemver } from "./semver.ts";
import { array, isPlainObject, matches, string } from "./validation.ts";
import { describeType } from "./seed_fields.ts";

/** The manifest properties the table's rows read (the rest come from seed_fields.ts). */
export interface TableFields {
  name?: string;
  description?: string;
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
  /** ToolHive's `toolhive.requires`: OCI references, written as one string or a YAML list. */
  toolhiveRequires?: string[];
  /** `requires: {mcp: [...]}`: the MCP servers the skill's instructions call (ComposioHQ's form). */
  mcpServers?: string[];
}

/** What a row's rule reads and reports through. */
interface FieldContext {
  /** The front matter, as YAML typed it. */
  fm: Readonly<Record<string, unknown>>;
  /** The front matter with every scalar as written (`1.0`, not 1), when it has typed values. */
  asWritten?: Record<string, unknown> | undefined;
  dirName?: string | undefined;
  cliVersion?: string | undefined;
  /** What earlier rows have read: a later row may look at an earlier one's value. */
  read: TableFields;
  error(key: string, message: string): void;
  warn(key: string, message: string): void;
}

/** Reads a present (neither absent nor null) value; returns what the manifest keeps, if any. */
type FieldRule<P extends keyof TableFields> = (
  value: NonNullable<unknown>,
  key: string,
  context: FieldContext,
) => TableFields[P] | undefined;

export interface ManifestField<P extends keyof TableFields = keyof TableFields> {
  /** The key as written in SKILL.md. */
  key: string;
  /** Other spellings read the same way (the first one present wins; `key` is preferred). */
  aliases?: readonly string[];
  /** Where the value lands in the manifest. */
  property: P;
  /** What the value must be, in YAML terms. */
  type: string;
  /** `spec`: the Agent Skills specification; `extension`: the seeds' own (strict refuses it). */
  origin: "spec" | "extension";
  /** A skill without it is refused in both modes. */
  required?: true;
  /** Strict mode: the Agent Skills specification exactly. */
  strict: FieldRule<P>;
  /** Default mode: what published skills write, with a warning where it is not portable. */
  lenient: FieldRule<P>;
  /** The message of the field's main problem (as the rules word it). */
  message: string;
}

const TEXT = string();
const TEXT_LIST = array(TEXT);
const SPEC_NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const SPEC_NAME_MESSAGE = "must be 1-64 lower-case letters, digits and single hyphens";

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

/** Text, at most `max` characters: anything else is an error. */
function text(max?: number) {
  return (value: unknown, key: string, { error }: FieldContext): string | undefined => {
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
}

/** Default mode: a scalar where text is expected is kept as written, with a warning. */
function lenientText(value: unknown, key: string, context: FieldContext): string | undefined {
  if (matches(TEXT, value)) return value;
  if (typeof value === "number" || typeof value === "boolean") {
    const written = context.asWritten?.[key];
    context.warn(key, `'${key}' should be a string, got ${describeType(value)}; read as text`);
    return typeof written === "string" ? written : String(value);
  }
  context.warn(key, `'${key}' must be a string, got ${describeType(value)}; ignored`);
  return undefined;
}

/** `compatibility` as the specification has it: text of at most 500 characters. */
const compatibilityText = text(500);

/**
 * Default mode: `compatibility` as a map of agents (`claude-code: true`, `codex: true` —
 * j4flmao's 249 skills write it so) is read as the text it stands for, with a warning; the
 * specification's is a sentence of what the skill needs. Other shapes as {@link lenientText}.
 */
function lenientCompatibility(
  value: unknown,
  key: string,
  context: FieldContext,
): string | undefined {
  if (!isPlainObject(value)) {
    return matches(TEXT, value)
      ? compatibilityText(value, key, context)
      : lenientText(value, key, context);
  }
  const entries = Object.entries(value);
  if (!entries.every(([, v]) => ["string", "number", "boolean"].includes(typeof v))) {
    return lenientText(value, key, context);
  }
  const written = entries.map(([agent, v]) => `${agent}: ${String(v)}`).join(", ");
  context.warn(
    key,
    `'${key}' is a map of agents; the specification's is a sentence of what the skill needs ` +
      `(a program, a network); read as text ("${written.slice(0, 80)}")`,
  );
  return written.slice(0, 500);
}

/** A semver version as text: anything else is an error. */
function semver(value: unknown, key: string, { error }: FieldContext): string | undefined {
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

/** Default mode: a version that is not semver is kept as written, with a warning. */
function lenientVersion(value: unknown, key: string, context: FieldContext): string | undefined {
  const version = lenientText(value, key, context);
  if (version !== undefined && parseSemver(version) === undefined) {
    context.warn(
      key,
      `'${key}' is not a semver version such as 1.0.0 (got '${version}'); kept as text`,
    );
  }
  return version;
}

/** A version bound on the CLI: `side` says which way this CLI may not be from it. */
function agentVersionBound(side: "min" | "max"): FieldRule<"minAgentVersion"> {
  return (value, key, context) => {
    const bound = semver(value, key, context);
    const cli = context.cliVersion === undefined ? undefined : parseSemver(context.cliVersion);
    const parsed = bound === undefined ? undefined : parseSemver(bound);
    if (cli === undefined || parsed === undefined) return bound;
    if (side === "min" && compareSemver(cli, parsed) < 0) {
      context.error(key, `requires skills ${bound} or newer (this is ${context.cliVersion})`);
    }
    if (side === "max" && compareSemver(cli, parsed) > 0) {
      context.error(key, `supports skills up to ${bound} (this is ${context.cliVersion})`);
    }
    return bound;
  };
}

function strictName(value: unknown, key: string, context: FieldContext): string | undefined {
  const name = text()(value, key, context);
  if (name === undefined) return undefined;
  if (name.length < 1 || name.length > 64 || !SPEC_NAME.test(name)) {
    context.error(key, `'${key}' ${SPEC_NAME_MESSAGE} (got '${name}')`);
  }
  if (context.dirName !== undefined && context.dirName !== name) {
    context.error(key, `'${key}' (${name}) must equal the directory name (${context.dirName})`);
  }
  return name;
}

function lenientName(value: unknown, key: string, context: FieldContext): string | undefined {
  const { warn, error } = context;
  let name = text()(value, key, context);
  if (name === undefined) return undefined;
  // Published skills sometimes pad it: read it trimmed, and say so.
  if (name !== name.trim() && name.trim() !== "") {
    warn(key, `'${key}' has surrounding spaces; read as '${name.trim()}'`);
    name = name.trim();
  }
  const problem = skillNameProblem(name);
  const installedAs = problem === undefined ? undefined : publishedSkillKey(name);
  if (installedAs !== undefined) {
    // Published names with spaces or a leading '-' are common; the skill is still usable
    // under the name derived from it, and the user is told both.
    warn(
      key,
      `'${key}' '${name}' is not a skill identifier (${problem}); it is installed and called as '${installedAs}'`,
    );
  } else if (problem !== undefined) error(key, `'${key}' ${problem} (got '${name}')`);
  else if (!SPEC_NAME.test(name)) {
    warn(key, `'${key}' is not portable: the Agent Skills spec wants lower-case kebab-case`);
  }
  if (context.dirName !== undefined && context.dirName !== name) {
    warn(key, `'${key}' (${name}) differs from the directory name (${context.dirName})`);
  }
  return name;
}

/**
 * A description as written, without the line break a YAML block scalar (`description: >`)
 * ends with: formatting of the file, not words an agent should be shown.
 */
function strictDescription(value: unknown, key: string, context: FieldContext) {
  const description = text(1024)(
    typeof value === "string" ? value.trimEnd() : value,
    key,
    context,
  );
  if (description?.trim() === "") context.error(key, `'${key}' must not be empty`);
  return description;
}

function lenientDescription(value: unknown, key: string, context: FieldContext) {
  const description = text()(typeof value === "string" ? value.trimEnd() : value, key, context);
  if (description === undefined) return undefined;
  const length = characterCount(description);
  if (length > 1024) {
    context.warn(
      key,
      `'${key}' is ${length} characters long (max 1024 in the specification; agents may cut it)`,
    );
  }
  if (description.trim() === "") context.error(key, `'${key}' must not be empty`);
  else if (length > 500 && length <= 1024) {
    context.warn(key, `'${key}' is ${length} characters; keep it under 500 for a small context`);
  }
  return description;
}

/** `allowed-tools`: the spec's space-delimited string; default mode also takes a list. */
function allowedTools(strict: boolean): FieldRule<"allowedTools"> {
  return (value, key, { error, warn }) => {
    if (matches(TEXT, value)) return value.split(/\s+/).filter((t) => t !== "");
    if (!matches(TEXT_LIST, value)) {
      error(key, `'allowed-tools' must be a space-delimited string, got ${describeType(value)}`);
      return undefined;
    }
    if (strict) error(key, "'allowed-tools' must be a space-delimited string");
    else warn(key, "'allowed-tools' as a list is not portable; use a space-delimited string");
    return value;
  };
}

/** `metadata`: a mapping of text; default mode keeps other scalars as written. */
function metadata(strict: boolean): FieldRule<"metadata"> {
  return (value, key, { error, warn, asWritten }) => {
    if (!isPlainObject(value)) {
      error(key, `'${key}' must be a mapping of strings, got ${describeType(value)}`);
      return undefined;
    }
    const kept: Record<string, string> = {};
    for (const [k, v] of Object.entries(value)) {
      if (matches(TEXT, v)) {
        kept[k] = v;
        continue;
      }
      const message = `'${key}.${k}' must be a string, got ${describeType(v)}`;
      if (strict) {
        error(key, message);
        continue;
      }
      warn(key, `${message} (not portable)`);
      if (matches(TEXT_LIST, v)) {
        // A list of text (ToolHive's requires) is kept as its lines, which is how a string
        // of several values is written (core/sources/requirements.ts reads either).
        kept[k] = v.join("\n");
      } else if (v !== null && typeof v !== "object") {
        // Keep the value as written: `version: 1.0` is "1.0", not "1".
        const meta = asWritten?.[key];
        const written = isPlainObject(meta) ? meta[k] : undefined;
        kept[k] = typeof written === "string" ? written : String(v);
      }
    }
    return kept;
  };
}

/**
 * ToolHive's top-level `toolhive.requires`: one OCI reference, several on lines, or (as
 * ToolHive writes it) a YAML list of them; kept as the list of references.
 */
const toolhiveRequires: FieldRule<"toolhiveRequires"> = (value, key, { error }) => {
  if (matches(TEXT, value)) {
    return value.split(/[\n,]/).map((r) => r.trim()).filter((r) => r !== "");
  }
  if (matches(TEXT_LIST, value)) return value.map((r) => r.trim()).filter((r) => r !== "");
  error(key, `'${key}' must be an OCI reference or a list of them, got ${describeType(value)}`);
  return undefined;
};

/**
 * `requires` as ComposioHQ's 832 skills write it, `{mcp: [rube]}`: the MCP servers their
 * instructions call, kept so that `add` and `info` can say so (nothing here starts one).
 * Another shape is not read, with a warning: skill dependencies are `metadata.requires`, and
 * ToolHive's are `toolhive.requires`.
 */
const requiredMcpServers: FieldRule<"mcpServers"> = (value, key, { warn }) => {
  const mcp = isPlainObject(value) ? value.mcp : undefined;
  const names = matches(TEXT, mcp) ? [mcp] : matches(TEXT_LIST, mcp) ? mcp : undefined;
  if (names === undefined) {
    warn(key, `'${key}' is read only as {mcp: [server, ...]}, the MCP servers it calls; ignored`);
    return undefined;
  }
  for (const other of Object.keys(value as object)) {
    if (other !== "mcp") warn(key, `'${key}.${other}' is not read`);
  }
  return names.map((n) => n.trim()).filter((n) => n !== "");
};

/** A row whose value is read alike in both modes. */
function both<P extends keyof TableFields>(rule: FieldRule<P>) {
  return { strict: rule, lenient: rule };
}

function row<P extends keyof TableFields>(field: ManifestField<P>): ManifestField {
  return field as unknown as ManifestField;
}

/** The fields, in the order their problems are reported. */
export const MANIFEST_FIELDS: readonly ManifestField[] = [
  row({
    key: "name",
    property: "name",
    type: "text",
    origin: "spec",
    required: true,
    strict: strictName,
    lenient: lenientName,
    message: `'name' ${SPEC_NAME_MESSAGE} (strict); default mode installs other names as a key`,
  }),
  row({
    key: "description",
    property: "description",
    type: "text, 1-1024 characters",
    origin: "spec",
    required: true,
    strict: strictDescription,
    lenient: lenientDescription,
    message: "'description' is N characters long (max 1024) / must not be empty",
  }),
  row({
    key: "compatibility",
    property: "compatibility",
    type: "text, at most 500 characters",
    origin: "spec",
    strict: compatibilityText,
    lenient: lenientCompatibility,
    message:
      "'compatibility' is N characters long (max 500) / must be a string (default mode reads a map of agents as text)",
  }),
  row({
    key: "license",
    property: "license",
    type: "text",
    origin: "spec",
    strict: text(),
    lenient: lenientText,
    message: "'license' must be a string (default mode reads a number as written)",
  }),
  row({
    key: "allowed-tools",
    aliases: ["allowed_tools"],
    property: "allowedTools",
    type: "space-delimited text",
    origin: "spec",
    strict: allowedTools(true),
    lenient: allowedTools(false),
    message: "'allowed-tools' must be a space-delimited string",
  }),
  row({
    key: "metadata",
    property: "metadata",
    type: "mapping of text",
    origin: "spec",
    strict: metadata(true),
    lenient: metadata(false),
    message: "'metadata' must be a mapping of strings",
  }),
  row({
    key: "version",
    property: "version",
    type: "semver text",
    origin: "extension",
    strict: semver,
    lenient: lenientVersion,
    message: "'version' must be a semver version such as 1.0.0 (default mode keeps other text)",
  }),
  row({
    key: "min_agent_base_version",
    property: "minAgentVersion",
    type: "semver text",
    origin: "extension",
    ...both(agentVersionBound("min")),
    message: "requires skills X or newer (this is Y)",
  }),
  row({
    key: "max_agent_base_version",
    property: "maxAgentVersion",
    type: "semver text",
    origin: "extension",
    ...both(agentVersionBound("max")),
    message: "supports skills up to X (this is Y)",
  }),
  row({
    key: "toolhive.requires",
    property: "toolhiveRequires",
    type: "text or list of text",
    origin: "extension",
    ...both(toolhiveRequires),
    message: "'toolhive.requires' must be an OCI reference or a list of them",
  }),
  row({
    key: "requires",
    property: "mcpServers",
    type: "mapping: mcp → MCP server names",
    origin: "extension",
    ...both(requiredMcpServers),
    message: "'requires' is read only as {mcp: [server, ...]}, the MCP servers it calls",
  }),
  row({
    key: "author",
    property: "author",
    type: "text",
    origin: "extension",
    ...both(text()),
    message: "'author' must be a string",
  }),
  row({
    key: "repository",
    property: "repository",
    type: "text",
    origin: "extension",
    ...both(text()),
    message: "'repository' must be a string",
  }),
];

/** The seed's fields for running code, read together by seed_fields.ts. */
const RUNNING_CODE_KEYS = ["toolsets", "scripts", "scripts_ignore", "permissions", "limits"];

/**
 * Keys of the Agent Skills specification, in the order the specification lists them (strict
 * mode's message names them so); the same keys as the table's `spec` rows.
 */
export const SPEC_KEYS: readonly string[] = [
  "name",
  "description",
  "license",
  "compatibility",
  "allowed-tools",
  "metadata",
];

/** Keys the seeds define on top of the spec (strict mode refuses them). */
export const EXTENSION_KEYS: ReadonlySet<string> = new Set([
  ...MANIFEST_FIELDS.filter((f) => f.origin === "extension").map((f) => f.key),
  ...MANIFEST_FIELDS.flatMap((f) => f.aliases ?? []),
  ...RUNNING_CODE_KEYS,
]);
