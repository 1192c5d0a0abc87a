/**
 * `AGENT_SKILLS` activation (DESIGN §3): a comma list (case-insensitive, canonicalised),
 * `all` (trusted skills only), `all-untrusted`, or `none`/empty. Unknown names are
 * reported, not ignored.
 */

import { canonicalSkillName, isValidSkillName, quoteName } from "./names.ts";

type ActivationSpec =
  | { kind: "none" }
  | { kind: "all"; includeUntrusted: boolean }
  | { kind: "list"; names: string[]; invalid: string[] };

export function parseActivation(value: string | undefined): ActivationSpec {
  const text = (value ?? "").trim();
  const lowered = text.toLowerCase();
  if (lowered === "" || lowered === "none") return { kind: "none" };
  if (lowered === "all") return { kind: "all", includeUntrusted: false };
  if (lowered === "all-untrusted") return { kind: "all", includeUntrusted: true };
  const names: string[] = [];
  const invalid: string[] = [];
  for (const part of text.split(",")) {
    const item = part.trim();
    if (item === "") continue;
    if (isValidSkillName(item)) {
      const canonical = canonicalSkillName(item);
      if (!names.includes(canonical)) names.push(canonical);
    } else invalid.push(item);
  }
  return names.length === 0 && invalid.length === 0
    ? { kind: "none" }
    : { kind: "list", names, invalid };
}

interface ActivationCandidate {
  canonical: string;
  trusted: boolean;
}

interface ActivationResult {
  /** Canonical names of active skills, in catalog order. */
  active: Set<string>;
  /** `all-untrusted`: the user opted into running untrusted skills' code. */
  allowUntrusted: boolean;
  /** Warnings to show the user (unknown names, untrusted skills skipped). */
  warnings: string[];
}

/**
 * Resolves a spec against the skills that loaded. `source` names where the spec came from
 * (`AGENT_SKILLS`, or `--skills` when a flag overrides it) in the warnings.
 */
export function resolveActivation(
  spec: ActivationSpec,
  candidates: readonly ActivationCandidate[],
  source = "AGENT_SKILLS",
): ActivationResult {
  const active = new Set<string>();
  const warnings: string[] = [];
  if (spec.kind === "none") return { active, warnings, allowUntrusted: false };
  if (spec.kind === "all") {
    for (const c of candidates) if (c.trusted || spec.includeUntrusted) active.add(c.canonical);
    if (active.size === 0 && candidates.length > 0) {
      warnings.push(`${source}=all activates trusted skills only, and none is trusted`);
    }
    if (spec.includeUntrusted) {
      const untrusted = candidates.filter((c) => !c.trusted).map((c) => c.canonical);
      warnings.push(
        `${source}=all-untrusted: untrusted code is enabled; ` +
          (untrusted.length > 0
            ? `the scripts and toolsets of ${untrusted.join(", ")} run without review`
            : "no untrusted skill is installed now"),
      );
    }
    return { active, warnings, allowUntrusted: spec.includeUntrusted };
  }
  const byName = new Map(candidates.map((c) => [c.canonical, c]));
  const unknown: string[] = [];
  for (const name of spec.names) {
    const found = byName.get(name);
    if (found === undefined) unknown.push(name);
    else if (!found.trusted) {
      warnings.push(
        `Skill '${name}' is not trusted and was not activated; run \`skills trust ${name}\``,
      );
    } else active.add(name);
  }
  if (unknown.length > 0) {
    warnings.push(`Unknown skill(s) in ${source}: ${unknown.join(", ")} (see \`skills list\`)`);
  }
  if (spec.invalid.length > 0) {
    warnings.push(
      `Invalid skill name(s) in ${source} ignored: ${
        spec.invalid.map((n) => `'${quoteName(n)}'`).join(", ")
      }`,
    );
  }
  return { active, warnings, allowUntrusted: false };
}
