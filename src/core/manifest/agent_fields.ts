/**
 * Front matter fields of the agents that run skills, recognised by name rather than
 * reported as unknown: Claude Code's `when_to_use`, `disable-model-invocation`,
 * `user-invocable`, `argument-hint`, `model`, `context`, `agent` and `hooks`. `when_to_use`
 * and the invocation controls are read; the rest is the agent's business (and `hooks`, which
 * run shell on load, are never executed here — `skills audit` reports them).
 */

export const AGENT_KEYS: ReadonlySet<string> = new Set([
  "when_to_use",
  "disable-model-invocation",
  "user-invocable",
  "argument-hint",
  "model",
  "context",
  "agent",
  "hooks",
]);

/** Who may start a skill. Absent fields keep the defaults (both true). */
export interface Invocation {
  /** false: the model never sees the skill in its catalog; the user can still invoke it. */
  modelInvocable: boolean;
  /** false: the user cannot start it by name (`/name` in the REPL). */
  userInvocable: boolean;
  /** Shown to the user after `/name`, e.g. `[file] [format]`. */
  argumentHint?: string;
}

/** The invocation controls of a front matter mapping, or undefined when it sets none. */
export function readInvocation(
  fm: Record<string, unknown>,
  warn: (key: string, message: string) => void,
): Invocation | undefined {
  const flag = (key: string): boolean | undefined => {
    const value = fm[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value === "boolean") return value;
    warn(key, `'${key}' must be true or false; ignored`);
    return undefined;
  };
  const disabled = flag("disable-model-invocation");
  const user = flag("user-invocable");
  const hint = fm["argument-hint"];
  if (disabled === undefined && user === undefined && typeof hint !== "string") return undefined;
  return {
    modelInvocable: disabled !== true,
    userInvocable: user !== false,
    ...(typeof hint === "string" ? { argumentHint: hint } : {}),
  };
}

/**
 * `when_to_use`: when the model should start the skill, written apart from `description`
 * (obra/superpowers' first format, and the skills that copied it, say what in one and when
 * in the other). Claude Code appends it to the description in the listing its model reads;
 * so does `listedDescription` (core/listing_budget.ts).
 */
export function readWhenToUse(
  fm: Record<string, unknown>,
  warn: (key: string, message: string) => void,
): string | undefined {
  const value = fm.when_to_use;
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") {
    warn("when_to_use", "'when_to_use' must be text; ignored");
    return undefined;
  }
  const text = value.trim();
  return text === "" ? undefined : text;
}
