/**
 * The questions an organisation's policy answers, each asked of every layer (org_policy.ts):
 * may this source be installed, is this signer one the policy names, which audit findings
 * refuse, is this network grant or environment pattern within the widest one allowed, may a
 * script run without the OS sandbox. A refusal is a `SkillError` whose message names the
 * file, line and key of the rule that refused; the first layer that refuses answers, so a
 * user's or a project's file can add refusals to the system's but never remove one.
 */

import { SkillError } from "../errors.ts";
import { globToRegExp } from "../glob.ts";
import { SEVERITIES, type Severity } from "../audit/audit_rules.ts";
import { type NetGrant, parseNetGrant } from "../policy/grant_syntax.ts";
import type { OrgPolicy, PolicyRule } from "./org_policy.ts";
import { ruleLabel } from "./org_policy.ts";
import type { SourceType } from "../records/registry.ts";

/** A source as records keep it: `git` URL, `local` path, `oci://registry/repository`, `web` URL. */
export interface SourceLike {
  type: SourceType;
  url: string;
}

/**
 * The one form sources are matched in: `https://host/path` for any git remote (ssh, scp-like
 * and http forms too, `.git` dropped), `file:///path` for anything on this machine,
 * `oci://registry/repository`, `npm:<package>` (npm names no host: a pattern names the package,
 * `npm:@acme/*`, never a git host's). Host names in lower case.
 */
export function sourceIdentity(source: SourceLike): string {
  if (source.type === "oci") return normalizedUrl(source.url);
  if (source.type === "npm") return source.url.trim().toLowerCase();
  if (source.type === "local") return `file://${source.url}`;
  let url = source.url.trim();
  const scp = /^[\w.-]+@([^:/]+):(.+)$/.exec(url); // git@github.com:acme/repo.git
  if (scp !== null) url = `https://${scp[1]}/${scp[2]}`;
  if (!url.includes("://")) url = `https://github.com/${url}`; // owner/repo shorthand
  url = url.replace(/^(?:ssh|git|http|https|git\+ssh):\/\/(?:[^@/]+@)?/, "https://");
  return normalizedUrl(url).replace(/\.git$/, "");
}

function normalizedUrl(url: string): string {
  const match = /^([a-z+]+:\/\/)([^/]*)(.*)$/i.exec(url);
  if (match === null) return url;
  return `${match[1]!.toLowerCase()}${match[2]!.toLowerCase()}${match[3]!.replace(/\/+$/, "")}`;
}

/**
 * Whether a source pattern matches: `*` is any run of characters but `/`, `**` anything; a
 * pattern without a scheme (`github.com/acme/*`) matches git and OCI sources alike.
 */
export function sourceMatches(pattern: string, identity: string): boolean {
  const trimmed = pattern.trim().replace(/\/+$/, "");
  const schemeless = !trimmed.includes("://");
  const subject = schemeless ? identity.replace(/^[a-z+]+:\/\//, "") : identity;
  const normal = schemeless ? trimmed : sourceIdentity(
    trimmed.startsWith("oci://") || trimmed.startsWith("file://")
      ? { type: "oci", url: trimmed }
      : { type: "git", url: trimmed },
  );
  let regex = "^";
  for (let i = 0; i < normal.length; i++) {
    const ch = normal[i]!;
    if (ch === "*" && normal[i + 1] === "*") {
      regex += ".*";
      i++;
    } else if (ch === "*") regex += "[^/]*";
    else regex += ch.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  }
  return new RegExp(`${regex}$`, "i").test(subject);
}

function denied(what: string, reason: string, rule: PolicyRule<unknown>): SkillError {
  return new SkillError("policy_denied", `Cannot ${what}: ${reason}, by ${ruleLabel(rule)}`, {
    hint: "The organisation's policy refuses it; `skills policy` shows the rules in force",
  });
}

/** Refuses a source a layer denies, or that a layer's non-empty allow list does not name. */
export function checkSource(policy: OrgPolicy, source: SourceLike, what: string): void {
  const identity = sourceIdentity(source);
  for (const layer of policy.layers) {
    const deny = layer.sourcesDeny;
    const hit = deny?.value.find((p) => sourceMatches(p, identity));
    if (deny !== undefined && hit !== undefined) {
      throw denied(what, `its source ${identity} matches the denied '${hit}'`, deny);
    }
    const allow = layer.sourcesAllow;
    if (allow !== undefined && allow.value.length > 0) {
      if (!allow.value.some((p) => sourceMatches(p, identity))) {
        throw denied(what, `its source ${identity} is not among the allowed sources`, allow);
      }
    }
  }
}

/** The rule that requires a signature, if a layer does. */
export function signatureRequirement(policy: OrgPolicy): PolicyRule<boolean> | undefined {
  return policy.layers.map((l) => l.signaturesRequired).find((r) => r?.value === true);
}

/** Who signed, in the forms a policy's `signatures.signers` names. */
export interface SignerIdentity {
  /** An SSH principal, or a certificate's subject (email, workflow URI). */
  by: string;
  /** The certificate's OIDC issuer (Sigstore, gitsign). */
  issuer?: string | undefined;
  /** A key's fingerprint (`SHA256:…`), for key-based signatures. */
  key?: string | undefined;
}

/** Whether one `signatures.signers` entry names this signer. */
export function signerMatches(entry: string, signer: SignerIdentity): boolean {
  const glob = (pattern: string, value: string | undefined) =>
    value !== undefined && globToRegExp(pattern).test(value);
  if (entry.startsWith("key:")) return signer.key !== undefined && entry.slice(4) === signer.key;
  if (entry.includes("|")) {
    const bar = entry.indexOf("|");
    return glob(entry.slice(0, bar), signer.issuer) && glob(entry.slice(bar + 1), signer.by);
  }
  return signer.issuer === undefined && glob(entry, signer.by);
}

/**
 * Refuses what is unsigned where a layer requires signatures (`unsigned`; `allowUnsigned`,
 * the user's `--allow-unsigned`, waives the user's and the project's requirement, never the
 * system's), and a signer a layer's non-empty `signers` list does not name
 * (`signer_not_allowed`).
 */
export function checkSigner(
  policy: OrgPolicy,
  signer: SignerIdentity | undefined,
  what: string,
  allowUnsigned = false,
): void {
  const required = signatureRequirement(policy);
  if (signer === undefined) {
    if (required === undefined) return;
    // --allow-unsigned is the user's: it answers the user's and the project's files, never
    // the system's.
    const system = policy.layers.find((l) => l.level === "system")?.signaturesRequired;
    const binding = system?.value === true ? system : required;
    if (allowUnsigned && binding.file !== system?.file) return;
    throw new SkillError(
      "unsigned",
      `Cannot ${what}: it is not signed, and ${ruleLabel(binding)} requires a signature`,
      {
        hint: binding === system
          ? "Install a signed release; the system's policy cannot be waived; nothing was installed"
          : "Install a signed release, or accept it unsigned with --allow-unsigned (recorded); nothing was installed",
      },
    );
  }
  for (const layer of policy.layers) {
    const signers = layer.signers;
    if (signers === undefined || signers.value.length === 0) continue;
    if (!signers.value.some((entry) => signerMatches(entry, signer))) {
      const who = signer.issuer === undefined ? signer.by : `${signer.issuer}|${signer.by}`;
      throw new SkillError(
        "signer_not_allowed",
        `Cannot ${what}: its signer ${who} is not among the signers of ${ruleLabel(signers)}`,
        { hint: "Nothing was installed" },
      );
    }
  }
}

/** A finding as the audit reports it. */
interface FindingLike {
  rule: string;
  severity: Severity;
  file: string;
  line?: number | undefined;
}

/**
 * The first audit finding the policy refuses, with the rule that refuses it: one whose rule a
 * layer lists in `never-accept` (even with --allow-risky), else — without --allow-risky — one
 * at or above a layer's `fail-on` (critical ones are refused by the audit itself already).
 */
export function checkFindings(
  policy: OrgPolicy,
  findings: readonly FindingLike[],
  allowRisky: boolean,
  what: string,
): SkillError | undefined {
  for (const layer of policy.layers) {
    const never = layer.neverAccept;
    const hit = never === undefined
      ? undefined
      : findings.find((f) => never.value.includes(f.rule));
    if (never !== undefined && hit !== undefined) {
      return denied(
        what,
        `the audit found ${hit.rule} (${hit.file}), which may never be accepted`,
        never,
      );
    }
  }
  if (allowRisky) return undefined;
  for (const layer of policy.layers) {
    const failOn = layer.failOn;
    if (failOn === undefined) continue;
    const rank = (s: Severity) => SEVERITIES.indexOf(s);
    const hit = findings.find((f) =>
      f.severity !== "critical" && rank(f.severity) <= rank(failOn.value)
    );
    if (hit !== undefined) {
      const error = denied(
        what,
        `the audit found ${hit.rule} (${hit.severity}, ${hit.file}), at or above the level that refuses`,
        failOn,
      );
      return new SkillError("policy_denied", error.message, {
        hint: "Review the findings; to accept them, pass --allow-risky",
      });
    }
  }
  return undefined;
}

/** Whether `grant` is within the allowed pattern `allowed` (both `host[:port]`, `*.domain`). */
function grantWithin(grant: NetGrant | "any", allowed: string): boolean {
  if (allowed === "*") return true;
  if (grant === "any") return false;
  const pattern = parseNetGrant(allowed);
  if ("error" in pattern) return false;
  if (pattern.port !== undefined && grant.port !== pattern.port) return false;
  if (pattern.host.startsWith("*.")) {
    const suffix = pattern.host.slice(1); // ".acme.com"
    const host = grant.host.startsWith("*.") ? grant.host.slice(1) : grant.host;
    return host.endsWith(suffix) && host.length > suffix.length;
  }
  return pattern.host === grant.host;
}

/**
 * Refuses a network grant (a skill's `permissions.network` entry, `--allow-net`,
 * SKILLS_ALLOW_NET; `*` for any public host) wider than a layer's `network.allow`.
 */
export function checkNetwork(policy: OrgPolicy, grants: readonly string[], what: string): void {
  for (const layer of policy.layers) {
    const allow = layer.networkAllow;
    if (allow === undefined) continue;
    for (const text of grants) {
      const grant = text === "*" ? "any" : parseNetGrant(text);
      if (grant !== "any" && "error" in grant) continue; // refused where it is parsed
      if (!allow.value.some((pattern) => grantWithin(grant, pattern))) {
        const shown = text === "*" ? "any public host" : text;
        throw denied(what, `the network grant ${shown} is wider than the policy allows`, allow);
      }
    }
  }
}

/** Refuses an environment pattern (`permissions.env`) no layer's `env.allow` admits. */
export function checkEnv(policy: OrgPolicy, patterns: readonly string[], what: string): void {
  for (const layer of policy.layers) {
    const allow = layer.envAllow;
    if (allow === undefined) continue;
    const wide = patterns.find((p) => !allow.value.some((a) => globToRegExp(a).test(p)));
    if (wide !== undefined) {
      throw denied(what, `the environment pattern ${wide} is wider than the policy allows`, allow);
    }
  }
}

/**
 * Refuses a run without the OS sandbox where a layer requires it, or where a layer limits the
 * network: without the sandbox's proxy nothing would hold a script to that limit.
 */
export function checkSandbox(policy: OrgPolicy, sandboxed: boolean, what: string): void {
  if (sandboxed) return;
  const rule = policy.layers.map((l) => l.sandboxRequired).find((r) => r?.value === true);
  if (rule !== undefined) {
    throw denied(what, "no OS sandbox is available (policy mode)", rule);
  }
  const network = policy.layers.map((l) => l.networkAllow).find((r) => r !== undefined);
  if (network !== undefined) {
    throw denied(what, "without the OS sandbox the network cannot be limited", network);
  }
}
