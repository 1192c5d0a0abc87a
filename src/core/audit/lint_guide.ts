/**
 * Where docs/writing-skills.md explains each `skills lint` rule, so a finding can point its
 * author to the fix. A table of its own (not in lint_checks.ts) so rules and prose evolve apart;
 * tests/docs/lint_guide_test.ts checks every anchor exists and every rule has a row.
 */

/** The guide, as a path from the repository root (where readers of the source find it). */
export const LINT_GUIDE = "docs/writing-skills.md";

const DESCRIPTION = "the-description-says-what-and-when";
const RESOURCES = "resources-and-progressive-disclosure";
const MANIFEST = "the-manifest";
const SCRIPTS = "scripts-answer---help-and---json";
/** For a rule the table does not know yet: the section on the three checks. */
const TESTING = "testing-validate-lint-audit";

/** Rule id → anchor in the guide. */
export const LINT_GUIDE_ANCHORS: Readonly<Record<string, string>> = {
  "description-short": DESCRIPTION,
  "description-first-person": DESCRIPTION,
  "description-when": DESCRIPTION,
  "description-vague": DESCRIPTION,
  "body-lines": RESOURCES,
  "body-tokens": RESOURCES,
  "missing-file": RESOURCES,
  "file-outside-skill": RESOURCES,
  "unreferenced-file": RESOURCES,
  "name-folder": MANIFEST,
  "invalid": MANIFEST,
  "portability": MANIFEST,
  "script-help": SCRIPTS,
  "script-json": SCRIPTS,
  "script-unchecked": SCRIPTS,
  "script-missing-module": SCRIPTS,
};

/** `docs/writing-skills.md#…` for a finding's rule. */
export function lintGuideFor(rule: string): string {
  return `${LINT_GUIDE}#${LINT_GUIDE_ANCHORS[rule] ?? TESTING}`;
}
