/**
 * Where the agents people use read skills, in a project and for the user — what
 * `skills link --agent <name>` writes into. From each agent's own documentation: most read
 * the shared `.agents/skills` (Codex, Gemini CLI, OpenCode, goose, Cursor, GitHub Copilot);
 * Claude Code reads `.claude/skills`. docs/project-skills.md ("Skills for your agents") shows the table.
 */

import { SkillError } from "./errors.ts";

interface AgentDirs {
  /** What the agent is called in messages. */
  label: string;
  /** Relative to the project root. */
  project: readonly string[];
  /** Where the user-scope folder starts, and the path below it. */
  user: { base: "home" | "xdg-config" | "claude-config"; path: readonly string[] };
}

const AGENTS = {
  "claude-code": {
    label: "Claude Code",
    project: [".claude", "skills"],
    user: { base: "claude-config", path: ["skills"] },
  },
  codex: {
    label: "Codex",
    project: [".agents", "skills"],
    user: { base: "home", path: [".agents", "skills"] },
  },
  gemini: {
    label: "Gemini CLI",
    project: [".agents", "skills"],
    user: { base: "home", path: [".agents", "skills"] },
  },
  opencode: {
    label: "OpenCode",
    project: [".agents", "skills"],
    user: { base: "home", path: [".agents", "skills"] },
  },
  goose: {
    label: "goose",
    project: [".agents", "skills"],
    user: { base: "xdg-config", path: ["agents", "skills"] },
  },
  cursor: {
    label: "Cursor",
    project: [".agents", "skills"],
    user: { base: "home", path: [".agents", "skills"] },
  },
  copilot: {
    label: "GitHub Copilot",
    project: [".agents", "skills"],
    user: { base: "home", path: [".agents", "skills"] },
  },
} as const satisfies Record<string, AgentDirs>;

export type AgentName = keyof typeof AGENTS;

/** Other spellings people type for an agent. */
const ALIASES: Readonly<Record<string, AgentName>> = {
  claude: "claude-code",
  "gemini-cli": "gemini",
  "github-copilot": "copilot",
};

export function agentNames(): AgentName[] {
  return Object.keys(AGENTS) as AgentName[];
}

/** The agent a word names (any case, or an alias); throws `usage` for an unknown one. */
export function parseAgentName(word: string): AgentName {
  const key = word.trim().toLowerCase();
  if (Object.hasOwn(AGENTS, key)) return key as AgentName;
  const alias = ALIASES[key];
  if (alias !== undefined) return alias;
  throw new SkillError("usage", `Unknown agent '${word}'`, {
    hint: `Known agents: ${agentNames().join(", ")}`,
  });
}

/** The agent's project folder, as path segments below the project root. */
export function agentProjectDir(agent: AgentName): readonly string[] {
  return AGENTS[agent].project;
}

/**
 * The agent's user folder as path segments from an absolute start: `$HOME`, the XDG config
 * home (`$XDG_CONFIG_HOME`, else `$HOME/.config`) or Claude's (`$CLAUDE_CONFIG_DIR`, else
 * `$HOME/.claude`). Throws `io_error` when HOME is not set.
 */
export function agentUserDir(
  agent: AgentName,
  env: Readonly<Record<string, string>>,
  isAbsolute: (path: string) => boolean,
): string[] {
  const home = env.HOME || env.USERPROFILE;
  if (!home) {
    throw new SkillError("io_error", "Cannot locate the home directory: HOME is not set");
  }
  const absolute = (value: string | undefined) =>
    value !== undefined && value !== "" && isAbsolute(value) ? value : undefined;
  const { base, path } = AGENTS[agent].user;
  const start = base === "home"
    ? [home]
    : base === "xdg-config"
    ? (absolute(env.XDG_CONFIG_HOME) ? [env.XDG_CONFIG_HOME!] : [home, ".config"])
    : (absolute(env.CLAUDE_CONFIG_DIR) ? [env.CLAUDE_CONFIG_DIR!] : [home, ".claude"]);
  return [...start, ...path];
}
