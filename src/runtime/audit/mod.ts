/**
 * runtime/audit — looking at a skill before trusting it, and helping its author: reading
 * every file a skill ships for the audit rules in core (scan.ts: `auditDir`), the audit
 * result each installed skill keeps under `$SKILLS_HOME/.cache`, redone when the rules
 * change (installed_audit.ts), and `skills lint`: the author's checks with the skill's scripts run
 * through the real runner (lint.ts), over every skill under the folders given, whose scripts
 * run when the command says so (lint_targets.ts: by default the trusted ones whose files still
 * match the digest trusted, checked by runtime/trust's gate as `run` checks it), and the guide
 * for skill authors built in for `skills lint --guide` (guide.ts). The rules and
 * their matching are pure (core/audit/engine.ts, core/audit/audit_rules.ts,
 * core/audit/lint_checks.ts); this folder only reads files and runs scripts.
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */

export const LAYER = {
  owns: "runtime/audit",
  mayImport: [
    "core",
    "generated",
    "runtime/os",
    "runtime/store",
    "runtime/catalog",
    "runtime/trust",
    "runtime/exec",
  ],
} as const;
