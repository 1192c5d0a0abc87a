/**
 * Terminal rendering shared by the commands that work on a project's skills (install,
 * check, add --project, update, remove): mismatches with their files, and the CI switch.
 */

import type { LinkOutcome } from "../../runtime/project/links.ts";
import type { Mismatch } from "../../runtime/project/restore.ts";

/** `CI=true` (or 1), as CI services set it: `skills install` is then frozen. */
export function isCi(env: Readonly<Record<string, string>>): boolean {
  const value = (env.CI ?? "").toLowerCase();
  return value === "true" || value === "1";
}

const MARK = { changed: "~", added: "+", removed: "-" } as const;

/** `✗ skill: message` and, below it, one line per file: `~ path`, `+ path`, `- path`. */
export function renderMismatches(mismatches: readonly Mismatch[]): string[] {
  const out: string[] = [];
  for (const m of mismatches) {
    out.push(`${m.blocking ? "✗" : "!"} ${m.skill}: ${m.message}`);
    for (const f of m.files) out.push(`    ${MARK[f.change]} ${f.path}`);
  }
  return out;
}

/** The lines `skills link` and `skills add --agent` print for what was linked. */
export function renderLinks(outcomes: readonly LinkOutcome[]): string[] {
  return outcomes.map((o) => {
    const agents = o.agents.join(", ");
    switch (o.status) {
      case "linked":
        return `Linked '${o.skill}' for ${agents}: ${o.path}`;
      case "copied":
        return `Copied '${o.skill}' for ${agents}: ${o.path}`;
      case "already":
        return `'${o.skill}' is already linked for ${agents}: ${o.path}`;
      case "visible":
        return `'${o.skill}' is already visible to ${agents} (${o.path})`;
      case "refused":
        return `Not linking '${o.skill}' for ${agents}: ${o.reason}`;
    }
  });
}
