/**
 * Whether the skills' listing fits what an agent shows of it (pure): agents keep the names
 * and descriptions of the available skills within a budget, and a skill past it is not
 * listed at all — the model cannot pick what it never sees. The budgets are the agents'
 * published ones: Claude Code 1 % of the context window (8,000 characters when the window is
 * not known) with each description, `when_to_use` appended, cut at 1,536 characters; Codex 2 %
 * of the window, or 8,000 characters, with the description alone. Tokens become characters at
 * 4 a token, as both agents' budgets do.
 */

import { UsageError } from "./errors.ts";

interface ListingBudget {
  label: string;
  /** The share of the context window the listing may take. */
  share: number;
  /** The budget when the window is not given. */
  fallbackChars: number;
  /** Where each description is cut, if the agent cuts them. */
  descriptionChars?: number;
  /** Whether the agent lists `when_to_use` after the description. */
  readsWhenToUse?: true;
}

const BUDGETS = {
  "claude-code": {
    label: "Claude Code",
    share: 0.01,
    fallbackChars: 8000,
    descriptionChars: 1536,
    readsWhenToUse: true,
  },
  codex: { label: "Codex", share: 0.02, fallbackChars: 8000 },
} as const satisfies Record<string, ListingBudget>;

type BudgetAgent = keyof typeof BUDGETS;

const CHARS_PER_TOKEN = 4;

/** What an agent lists of a skill: its description and Claude Code's `when_to_use`. */
interface ListedFields {
  description: string;
  whenToUse?: string | undefined;
}

/**
 * What a model reads of a skill before it loads it: the description, then `when_to_use`
 * when the skill has one (as Claude Code lists it), joined as one text.
 */
export function listedDescription(manifest: ListedFields): string {
  const when = manifest.whenToUse;
  if (when === undefined) return manifest.description;
  const description = manifest.description.trimEnd();
  // "…protocols" + "when encountering bugs" reads on; "…protocols" + "Use when …" is a
  // sentence of its own.
  const joint = /[.!?:;]$/.test(description) || !/^[A-Z]/.test(when) ? " " : ". ";
  return `${description}${joint}${when}`;
}

export function budgetAgent(name: string): BudgetAgent {
  const key = name.trim().toLowerCase().replace(/^claude$/, "claude-code");
  if (key in BUDGETS) return key as BudgetAgent;
  throw new UsageError(
    `Unknown agent '${name}' for --agent`,
    `Use one of ${Object.keys(BUDGETS).join(", ")}`,
  );
}

export interface ListingReport {
  agent: BudgetAgent;
  label: string;
  budget_chars: number;
  /** `context window` when --context-window was given, else `fallback`. */
  budget_basis: "context window" | "fallback";
  used_chars: number;
  fits: boolean;
  /** Descriptions the agent cuts, with their length and what it keeps. */
  cut: { name: string; chars: number; kept: number }[];
  /** Skills past the budget, not listed at all (in listing order). */
  omitted: string[];
}

export function listingReport(
  agent: BudgetAgent,
  skills: readonly { name: string; manifest: ListedFields }[],
  contextWindowTokens?: number,
): ListingReport {
  const budget: ListingBudget = BUDGETS[agent];
  const budgetChars = contextWindowTokens === undefined
    ? budget.fallbackChars
    : Math.floor(contextWindowTokens * budget.share * CHARS_PER_TOKEN);
  const cut: ListingReport["cut"] = [];
  const omitted: string[] = [];
  let used = 0;
  for (const skill of [...skills].sort((a, b) => a.name.localeCompare(b.name))) {
    const limit = budget.descriptionChars;
    const description = "readsWhenToUse" in budget
      ? listedDescription(skill.manifest)
      : skill.manifest.description;
    const kept = limit !== undefined && description.length > limit ? limit : description.length;
    // one line per skill: "- name: description\n"
    const entry = skill.name.length + kept + 5;
    if (used + entry > budgetChars) {
      omitted.push(skill.name); // not listed at all: where its description would be cut is moot
      continue;
    }
    used += entry;
    if (kept < description.length) cut.push({ name: skill.name, chars: description.length, kept });
  }
  return {
    agent,
    label: budget.label,
    budget_chars: budgetChars,
    budget_basis: contextWindowTokens === undefined ? "fallback" : "context window",
    used_chars: used,
    fits: omitted.length === 0 && cut.length === 0,
    cut,
    omitted,
  };
}
