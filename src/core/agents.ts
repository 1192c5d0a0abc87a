/**
 * Where the agents people use read skills, in a project and for the user — what
 * `skills link --agent <name>` writes into — as one table (`AGENTS`), each row citing the agent's
 * own documentation of those folders. `link`'s help, docs/project-skills.md's table and the agent
 * names `--agent` accepts are all rendered from it (`renderAgentHelp`, `renderAgentTable`), so a
 * new agent is one row. Where an agent's documentation and vercel-labs' `skills` CLI disagree, the
 * row follows the agent's documentation and says why in `peerDiffers` (docs/compatibility.md
 * lists them; tests/e2e/peer/peer_agents_test.ts holds both tools to it).
 *
 * Agents that read the shared `.agents/skills` in a project read `~/.agents/skills` for the user
 * too (each documents it), which is where the peer puts them; their own user folders
 * (`~/.gemini/skills`, `~/.copilot/skills`, …) are read as well, and not written.
 *
 * Folders are written as the user reads them: `~` is `$HOME`, and `${VAR:-default}` is an
 * environment override the agent documents (`$CLAUDE_CONFIG_DIR`, `$XDG_CONFIG_HOME`), used only
 * when it is an absolute path.
 */

import { SkillError } from "./errors.ts";

interface AgentRow {
  /** What the agent is called in messages. */
  label: string;
  /** Relative to the project root. */
  project: string;
  /** The user-scope folder (see the header for the notation). */
  user: string;
  /** The folder whose presence means the agent is installed (`--agent all-detected`), as the peer detects it. */
  detect: string;
  /** Where the agent documents these folders. */
  docs: string;
  /** Other names people type. */
  aliases?: readonly string[];
  /** The peer CLI's name for the agent, where it differs from ours (accepted as an alias too). */
  peer?: string;
  /** Why the peer CLI writes elsewhere, when it does (its folders, then the reason). */
  peerDiffers?: { project?: string; user?: string; why: string };
}

const AGENTS = {
  "claude-code": {
    label: "Claude Code",
    project: ".claude/skills",
    user: "${CLAUDE_CONFIG_DIR:-~/.claude}/skills",
    detect: "${CLAUDE_CONFIG_DIR:-~/.claude}",
    docs: "https://code.claude.com/docs/en/skills",
    aliases: ["claude"],
  },
  codex: {
    label: "Codex",
    project: ".agents/skills",
    user: "~/.agents/skills",
    detect: "${CODEX_HOME:-~/.codex}",
    docs: "https://developers.openai.com/codex/skills",
  },
  gemini: {
    label: "Gemini CLI",
    project: ".agents/skills",
    user: "~/.agents/skills",
    detect: "~/.gemini",
    docs: "https://geminicli.com/docs/cli/using-agent-skills/",
    peer: "gemini-cli",
  },
  opencode: {
    label: "OpenCode",
    project: ".agents/skills",
    user: "~/.agents/skills",
    detect: "${XDG_CONFIG_HOME:-~/.config}/opencode",
    docs: "https://opencode.ai/docs/skills",
  },
  goose: {
    label: "goose",
    project: ".agents/skills",
    user: "~/.agents/skills",
    detect: "${XDG_CONFIG_HOME:-~/.config}/goose",
    docs: "https://block.github.io/goose/docs/guides/context-engineering/using-skills",
    peerDiffers: {
      project: ".goose/skills",
      user: "${XDG_CONFIG_HOME:-~/.config}/goose/skills",
      why:
        "goose's documentation names .agents/skills and ~/.agents/skills as its folders and reads .goose/skills and its config folder only for backward compatibility",
    },
  },
  cursor: {
    label: "Cursor",
    project: ".agents/skills",
    user: "~/.agents/skills",
    detect: "~/.cursor",
    docs: "https://cursor.com/docs/context/skills",
  },
  copilot: {
    label: "GitHub Copilot",
    project: ".agents/skills",
    user: "~/.agents/skills",
    detect: "~/.copilot",
    docs: "https://docs.github.com/en/copilot/concepts/agents/about-agent-skills",
    peer: "github-copilot",
  },
  windsurf: {
    label: "Windsurf",
    project: ".windsurf/skills",
    user: "~/.codeium/windsurf/skills",
    detect: "~/.codeium/windsurf",
    docs: "https://docs.windsurf.com/windsurf/cascade/skills",
  },
  roo: {
    label: "Roo Code",
    project: ".roo/skills",
    user: "~/.roo/skills",
    detect: "~/.roo",
    docs: "https://docs.roocode.com/features/skills",
  },
  "kiro-cli": {
    label: "Kiro",
    project: ".kiro/skills",
    user: "~/.kiro/skills",
    detect: "~/.kiro",
    docs: "https://kiro.dev/docs/cli/skills",
    aliases: ["kiro"],
  },
  junie: {
    label: "Junie",
    project: ".junie/skills",
    user: "~/.junie/skills",
    detect: "~/.junie",
    docs: "https://www.jetbrains.com/help/air/skills.html",
  },
  "qwen-code": {
    label: "Qwen Code",
    project: ".qwen/skills",
    user: "~/.qwen/skills",
    detect: "~/.qwen",
    docs: "https://qwenlm.github.io/qwen-code-docs/en/users/features/skills/",
    aliases: ["qwen"],
  },
  rovodev: {
    label: "Rovo Dev",
    project: ".rovodev/skills",
    user: "~/.rovodev/skills",
    detect: "~/.rovodev",
    docs: "https://support.atlassian.com/rovo/docs/extend-rovo-dev-cli-with-agent-skills/",
    aliases: ["rovo-dev"],
  },
  openhands: {
    label: "OpenHands",
    project: ".agents/skills",
    user: "~/.openhands/skills",
    detect: "~/.openhands",
    docs: "https://docs.openhands.dev/overview/skills",
    peerDiffers: {
      project: ".openhands/skills",
      why:
        "OpenHands' documentation recommends .agents/skills for a repository's skills (and installs there itself with /add-skill)",
    },
  },
  droid: {
    label: "Factory Droid",
    project: ".factory/skills",
    user: "~/.factory/skills",
    detect: "~/.factory",
    docs: "https://docs.factory.ai/cli/configuration/skills",
    aliases: ["factory"],
    peerDiffers: {
      project: ".agents/skills",
      user: "~/.agents/skills",
      why:
        "Factory's documentation names .factory/skills and ~/.factory/skills as Droid's skills folders",
    },
  },
} as const satisfies Record<string, AgentRow>;

export type AgentName = keyof typeof AGENTS;

/** `--agent all-detected`: every agent whose folder exists on this machine. */
const ALL_DETECTED = "all-detected";

/** The names besides its own that an agent answers to: the peer's, then the aliases. */
function otherNames(row: AgentRow): string[] {
  return [...(row.peer ? [row.peer] : []), ...(row.aliases ?? [])];
}

/** Every agent's row, in the table's order. */
export function agentRows(): [AgentName, AgentRow][] {
  return Object.entries(AGENTS) as [AgentName, AgentRow][];
}

export function agentNames(): AgentName[] {
  return Object.keys(AGENTS) as AgentName[];
}

export function agentLabel(agent: AgentName): string {
  return AGENTS[agent].label;
}

/** The agent a word names (any case, or an alias); throws `usage` for an unknown one. */
export function parseAgentName(word: string): AgentName {
  const key = word.trim().toLowerCase();
  if (Object.hasOwn(AGENTS, key)) return key as AgentName;
  for (const [name, row] of agentRows()) {
    if (otherNames(row).includes(key)) return name;
  }
  throw new SkillError("usage", `Unknown agent '${word}'`, {
    hint: `Known agents: ${agentNames().join(", ")}, or ${ALL_DETECTED}`,
  });
}

/**
 * The words of `--agent` (repeatable, comma-separated): the agents named, and whether
 * `all-detected` was among them (the caller asks the machine which agents are installed).
 */
export function parseAgentWords(
  words: readonly string[],
): { agents: AgentName[]; allDetected: boolean } {
  const split = words.flatMap((w) => w.split(",")).map((w) => w.trim()).filter((w) => w !== "");
  const allDetected = split.some((w) => w.toLowerCase() === ALL_DETECTED);
  const named = split.filter((w) => w.toLowerCase() !== ALL_DETECTED).map(parseAgentName);
  return { agents: [...new Set(named)], allDetected };
}

/** The agent's project folder, as path segments below the project root. */
export function agentProjectDir(agent: AgentName): readonly string[] {
  return AGENTS[agent].project.split("/");
}

/** A folder of the table resolved: where it starts (the home or an override) and the path below. */
interface ResolvedFolder {
  start: string;
  path: string[];
}

const TEMPLATE = /^\$\{([A-Z_]+):-(~[^}]*)\}(.*)$/;

/**
 * A folder written in the table's notation, resolved against `env`: `${VAR:-~/x}` is `$VAR` when
 * it is set to an absolute path, else `$HOME/x`; `~` is `$HOME`. Throws `io_error` when HOME is
 * not set.
 */
export function resolveAgentFolder(
  written: string,
  env: Readonly<Record<string, string>>,
  isAbsolute: (path: string) => boolean,
): ResolvedFolder {
  const home = env.HOME || env.USERPROFILE;
  if (!home) {
    throw new SkillError("io_error", "Cannot locate the home directory: HOME is not set");
  }
  const segments = (text: string) => text.split("/").filter((s) => s !== "");
  const fromHome = (text: string): ResolvedFolder => ({
    start: home,
    path: segments(text.replace(/^~/, "")),
  });
  const template = TEMPLATE.exec(written);
  if (template === null) return fromHome(written);
  const [, variable, fallback, rest] = template as unknown as [string, string, string, string];
  const override = env[variable];
  if (override !== undefined && override !== "" && isAbsolute(override)) {
    return { start: override, path: segments(rest) };
  }
  const base = fromHome(fallback);
  return { start: base.start, path: [...base.path, ...segments(rest)] };
}

/**
 * The agent's user folder as path segments from an absolute start (see `resolveAgentFolder`).
 * Throws `io_error` when HOME is not set.
 */
export function agentUserDir(
  agent: AgentName,
  env: Readonly<Record<string, string>>,
  isAbsolute: (path: string) => boolean,
): string[] {
  const { start, path } = resolveAgentFolder(AGENTS[agent].user, env, isAbsolute);
  return [start, ...path];
}

/** The folder whose presence says the agent is installed, as path segments. */
export function agentDetectDir(
  agent: AgentName,
  env: Readonly<Record<string, string>>,
  isAbsolute: (path: string) => boolean,
): string[] {
  const { start, path } = resolveAgentFolder(AGENTS[agent].detect, env, isAbsolute);
  return [start, ...path];
}

/** `link`'s help section: one line per agent, its folders and the names it answers to. */
export function renderAgentHelp(): string {
  const rows = agentRows().map(([name, row]) => {
    const names = [name, ...otherNames(row)].join(", ");
    return [names, row.project, row.user];
  });
  const widths = [0, 1].map((i) => Math.max(...rows.map((r) => r[i]!.length)));
  const lines = rows.map(([names, project, user]) =>
    `  ${names!.padEnd(widths[0]!)}  ${project!.padEnd(widths[1]!)}  ${user}`
  );
  lines.push(
    `  ${ALL_DETECTED.padEnd(widths[0]!)}  every agent above whose folder exists on this machine`,
  );
  return `\n${lines.join("\n")}`;
}

/** docs/project-skills.md's table of agents (before `deno fmt` aligns it). */
export function renderAgentTable(): string {
  const lines = [
    "| agent (`--agent`) | project | user (`--global`) | documented at |",
    "| --- | --- | --- | --- |",
  ];
  for (const [name, row] of agentRows()) {
    const others = otherNames(row);
    const aliases = others.length ? ` (${others.map((a) => `\`${a}\``).join(", ")})` : "";
    lines.push(
      `| \`${name}\`${aliases} | \`${row.project}/\` | \`${row.user}/\` | [${row.label}](${row.docs}) |`,
    );
  }
  return lines.join("\n");
}

/** docs/compatibility.md's list of the agents where the peer CLI writes elsewhere, and why. */
export function renderPeerDifferences(): string {
  const lines: string[] = [];
  for (const [name, row] of agentRows()) {
    const differs = (row as AgentRow).peerDiffers;
    if (differs === undefined) continue;
    const theirs = [
      differs.project ? `\`${differs.project}/\` in a project` : undefined,
      differs.user ? `\`${differs.user}/\` for the user` : undefined,
    ].filter((x) => x !== undefined).join(" and ");
    lines.push(
      `- \`${name}\`: the peer writes ${theirs}; \`skills link\` writes \`${row.project}/\` and \`${row.user}/\`: ${differs.why}.`,
    );
  }
  return lines.join("\n");
}

/** The peer CLI's name and folders for an agent (for the interop test). */
export function peerView(agent: AgentName): { name: string; project: string; user: string } {
  const row = AGENTS[agent] as AgentRow;
  return {
    name: row.peer ?? agent,
    project: row.peerDiffers?.project ?? row.project,
    user: row.peerDiffers?.user ?? row.user,
  };
}
