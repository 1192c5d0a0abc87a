/**
 * An organisation's policy file (`policy.yaml`) read into a layer: every rule with the file
 * and line it came from, so a refusal and `skills policy` can say where it was written. Three
 * files may apply — the system's, the user's, the project's — and each is a layer of its own:
 * nothing is merged, every check asks every layer (policy_checks.ts), so a later file can
 * only add refusals, never take one away.
 *
 * The keys (a policy written today keeps working):
 *
 *   sources:    { allow: [pattern…], deny: [pattern…] }   # deny wins; a non-empty allow admits only matches
 *   signatures: { required: bool, signers: [identity…],  # `issuer|subject`, an SSH principal, `key:SHA256:…`
 *                 keys: [cosign.pub…] }                 # public keys (PEM files) to check key-based signatures with
 *   audit:      { fail-on: critical|high|medium|info, never-accept: [rule id…] }
 *   network:    { allow: [host[:port]…] }                 # the widest grant a skill or a user may give
 *   env:        { allow: [NAME pattern…] }                # the widest variables a skill may get
 *   sandbox:    { required: bool }                        # no policy mode
 *
 * A key this version does not know is refused, not ignored: a rule that is not understood
 * must not silently stop applying.
 */

import { SkillError } from "../errors.ts";
import { SEVERITIES, type Severity } from "../audit/audit_rules.ts";
import { parseNetGrant } from "../policy/grant_syntax.ts";

/** Where a policy file sits: the order is the order they are read and shown in. */
export type PolicyLevel = "system" | "user" | "project";

/** One rule's value and where it was written. */
export interface PolicyRule<T> {
  value: T;
  /** `sources.allow`, `audit.fail-on`, … as the file spells it. */
  key: string;
  file: string;
  /** 1-based line of the key in the file. */
  line: number;
}

export interface PolicyLayer {
  level: PolicyLevel;
  file: string;
  sourcesAllow?: PolicyRule<string[]>;
  sourcesDeny?: PolicyRule<string[]>;
  signaturesRequired?: PolicyRule<boolean>;
  signers?: PolicyRule<string[]>;
  /** Public keys (PEM files, cosign.pub) key-based Sigstore signatures are checked with. */
  signingKeys?: PolicyRule<string[]>;
  failOn?: PolicyRule<Severity>;
  neverAccept?: PolicyRule<string[]>;
  networkAllow?: PolicyRule<string[]>;
  envAllow?: PolicyRule<string[]>;
  sandboxRequired?: PolicyRule<boolean>;
}

/** The policy in force: each file that exists, in order system, user, project. */
export interface OrgPolicy {
  layers: PolicyLayer[];
}

type Field = Exclude<keyof PolicyLayer, "level" | "file">;
type Kind = "list" | "bool" | "severity";

/** Every key a policy may hold: its section, its name, the layer's field and the value's kind. */
const KEYS: readonly { section: string; name: string; field: Field; kind: Kind }[] = [
  { section: "sources", name: "allow", field: "sourcesAllow", kind: "list" },
  { section: "sources", name: "deny", field: "sourcesDeny", kind: "list" },
  { section: "signatures", name: "required", field: "signaturesRequired", kind: "bool" },
  { section: "signatures", name: "signers", field: "signers", kind: "list" },
  { section: "signatures", name: "keys", field: "signingKeys", kind: "list" },
  { section: "audit", name: "fail-on", field: "failOn", kind: "severity" },
  { section: "audit", name: "never-accept", field: "neverAccept", kind: "list" },
  { section: "network", name: "allow", field: "networkAllow", kind: "list" },
  { section: "env", name: "allow", field: "envAllow", kind: "list" },
  { section: "sandbox", name: "required", field: "sandboxRequired", kind: "bool" },
];

const MAX_ENTRIES = 1000;

function invalid(file: string, line: number, message: string): SkillError {
  return new SkillError("policy_denied", `Invalid policy ${file}:${line}: ${message}`, {
    hint:
      "Fix the policy file (see docs/signatures.md); nothing runs or installs while it is invalid",
  });
}

/**
 * The 1-based line where `section:` (at column 0) and then its `name:` are written, or the
 * section's line when the name is written on it (`sources: { allow: [...] }`), or 1.
 */
export function lineOf(text: string, section: string, name?: string): number {
  const lines = text.split("\n");
  const start = lines.findIndex((l) => new RegExp(`^["']?${escape(section)}["']?\\s*:`).test(l));
  if (start === -1) return 1;
  if (name === undefined) return start + 1;
  const key = new RegExp(`(^|[\\s{,])["']?${escape(name)}["']?\\s*:`);
  for (let i = start; i < lines.length; i++) {
    const line = lines[i]!;
    if (i > start && /^[^\s#]/.test(line)) break;
    const afterSection = i === start ? line.slice(line.indexOf(":") + 1) : line;
    if (key.test(afterSection)) return i + 1;
  }
  return start + 1;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** One value checked against its kind; an error message, or the value. */
function checked(kind: Kind, value: unknown): { ok: unknown } | { error: string } {
  if (kind === "bool") {
    return typeof value === "boolean" ? { ok: value } : { error: "expected true or false" };
  }
  if (kind === "severity") {
    return typeof value === "string" && (SEVERITIES as readonly string[]).includes(value)
      ? { ok: value }
      : { error: `expected one of ${SEVERITIES.join(", ")}` };
  }
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string" || v.trim() === "")) {
    return { error: "expected a list of non-empty strings" };
  }
  if (value.length > MAX_ENTRIES) return { error: `more than ${MAX_ENTRIES} entries` };
  return { ok: value.map((v: string) => v.trim()) };
}

/** Checks that need the key: grants must parse, signers must be one of the written forms. */
function entryProblem(field: Field, entry: string): string | undefined {
  if (field === "networkAllow" && entry !== "*") {
    const grant = parseNetGrant(entry);
    if ("error" in grant) return grant.error;
  }
  if (field === "signers" && entry.includes("|")) {
    const [issuer, subject] = entry.split("|");
    if (!issuer || !subject) return `'${entry}' is not issuer|subject`;
  }
  return undefined;
}

/**
 * The layer a policy file's parsed YAML (`document`, from `text`) says; throws
 * `policy_denied` naming the file and line of anything it cannot read.
 */
export function policyLayer(
  document: unknown,
  text: string,
  file: string,
  level: PolicyLevel,
): PolicyLayer {
  const layer: PolicyLayer = { level, file };
  if (document === null || document === undefined) return layer; // an empty file: no rules
  if (!isObject(document)) throw invalid(file, 1, "expected a mapping of sections");
  for (const [section, body] of Object.entries(document)) {
    const sectionLine = lineOf(text, section);
    const known = KEYS.filter((k) => k.section === section);
    if (known.length === 0) {
      throw invalid(file, sectionLine, `unknown section '${section}'`);
    }
    if (body === null) continue;
    if (!isObject(body)) throw invalid(file, sectionLine, `'${section}' must be a mapping`);
    for (const [name, value] of Object.entries(body)) {
      const line = lineOf(text, section, name);
      const key = known.find((k) => k.name === name);
      if (key === undefined) throw invalid(file, line, `unknown key '${section}.${name}'`);
      const result = checked(key.kind, value);
      if ("error" in result) throw invalid(file, line, `${section}.${name}: ${result.error}`);
      if (key.kind === "list") {
        for (const entry of result.ok as string[]) {
          const problem = entryProblem(key.field, entry);
          if (problem !== undefined) {
            throw invalid(file, line, `${section}.${name}: ${problem}`);
          }
        }
      }
      (layer as unknown as Record<string, PolicyRule<unknown>>)[key.field] = {
        value: result.ok,
        key: `${section}.${name}`,
        file,
        line,
      };
    }
  }
  return layer;
}

/** Every rule of a layer, in the order of {@link KEYS}. */
export function layerRules(layer: PolicyLayer): PolicyRule<unknown>[] {
  return KEYS.flatMap((k) => {
    const rule = layer[k.field] as PolicyRule<unknown> | undefined;
    return rule === undefined ? [] : [rule];
  });
}

/** `file:line (key)`: how a refusal names the rule. */
export function ruleLabel(rule: PolicyRule<unknown>): string {
  return `${rule.file}:${rule.line} (${rule.key})`;
}
