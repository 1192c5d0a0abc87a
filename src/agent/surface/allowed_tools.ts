/**
 * `allowed-tools` enforcement (pure). When enabled, the last successfully activated skill's
 * allowlist contracts the tool list and blocks other calls with `TOOL_NOT_ALLOWED`. The
 * skill tools (and `call_skill_tool`, the dispatcher of virtual skills' tools) are the baseline and always stay allowed, so a model can never lock itself out.
 */

import type { ErrorCode } from "../../core/errors.ts";
import { globToRegExp } from "../../core/glob.ts";
import { SERVICE_TOOL_NAMES } from "../services/service_tools.ts";

export const BASELINE_TOOLS: ReadonlySet<string> = new Set([
  "activate_skill",
  "read_skill_file",
  "script_list",
  "script_help",
  "script_run",
  "call_skill_tool",
  // Present only with the user's grant of services (agent/services).
  ...SERVICE_TOOL_NAMES,
]);

export const TOOL_NOT_ALLOWED = "TOOL_NOT_ALLOWED" satisfies ErrorCode;

export interface AllowedToolsPolicy {
  /** The skill whose `allowed-tools` is in force. */
  skill: string;
  patterns: readonly string[];
}

interface PolicyDecision {
  /** The policy now in force; null means no contraction. */
  policy: AllowedToolsPolicy | null;
  /** A warning for the log when an allowlist was ignored. */
  warning?: string;
}

/**
 * Spellings an author may use for a toolset tool: `hello-extended.greet` and
 * `hello_extended__greet` both mean the qualified name `hello_extended__greet`.
 */
function normalize(name: string): string {
  return name.replaceAll("-", "_").replaceAll(".", "__");
}

/** Exact names, or `*`/`?`/`[...]` globs. */
export function matchesAllowlist(tool: string, patterns: readonly string[]): boolean {
  const name = normalize(tool);
  return patterns.some((raw) => {
    const pattern = normalize(raw);
    return /[*?[]/.test(pattern) ? globToRegExp(pattern).test(name) : pattern === name;
  });
}

/**
 * The policy after a successful activation of `skill` (last activation wins).
 * `knownTools` are all tool names currently mounted (baseline and toolset tools).
 */
export function decidePolicy(
  skill: string,
  allowedTools: readonly string[] | undefined,
  knownTools: readonly string[],
): PolicyDecision {
  const patterns = (allowedTools ?? []).map((p) => p.trim()).filter((p) => p !== "");
  if (patterns.length === 0) return { policy: null };
  const extra = knownTools.filter((t) => !BASELINE_TOOLS.has(t));
  if (!extra.some((t) => matchesAllowlist(t, patterns))) {
    return {
      policy: null,
      warning: `Ignoring allowed-tools of skill '${skill}': it matches no tool besides the ` +
        `skill tools (${patterns.join(" ")})`,
    };
  }
  return { policy: { skill, patterns } };
}

export function isToolAllowed(policy: AllowedToolsPolicy | null, tool: string): boolean {
  return policy === null || BASELINE_TOOLS.has(tool) || matchesAllowlist(tool, policy.patterns);
}

/** `SKILLS_ALLOWED_TOOLS=on|off` (also true/false, 1/0); default off. */
export function allowedToolsEnabled(value: string | undefined): boolean {
  const text = (value ?? "").trim().toLowerCase();
  return text === "on" || text === "true" || text === "1" || text === "yes";
}
