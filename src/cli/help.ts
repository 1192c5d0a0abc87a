/** Help text rendered from command specs (pure): each command's `--help` and `skills --help`. */

import {
  type CommandIndexEntry,
  type CommandSpec,
  type FlagSpec,
  GLOBAL_FLAGS,
  type HelpSection,
} from "./spec.ts";

/** `-y, --yes`, `--ref REF`, `-p, --prompt TEXT`. */
export function flagLabel(long: string, flag: FlagSpec): string {
  const name = flag.short ? `-${flag.short}, --${long}` : `--${long}`;
  return flag.value === undefined ? name : `${name} ${flag.value}`;
}

/** The narrowest option column: as wide as `-v, --verbose`, so most tables line up. */
const MIN_LABEL_WIDTH = 13;

/** Two-column option lines; descriptions start two spaces after the widest label. */
export function flagTable(flags: Readonly<Record<string, FlagSpec>>): string[] {
  const entries = Object.entries(flags);
  const width = Math.max(MIN_LABEL_WIDTH, ...entries.map(([long, f]) => flagLabel(long, f).length));
  const indent = " ".repeat(width + 4);
  return entries.flatMap(([long, flag]) => {
    const [first, ...more] = flag.description.split("\n");
    return [
      `  ${flagLabel(long, flag).padEnd(width)}  ${first}`,
      ...more.map((line) => `${indent}${line}`),
    ];
  });
}

function section(s: HelpSection): string {
  if (s.title === undefined) return s.text;
  return s.text.startsWith("\n") ? `${s.title}:${s.text}` : `${s.title}: ${s.text}`;
}

function aliasLine(spec: Pick<CommandSpec, "aliases">): string[] {
  const aliases = spec.aliases ?? [];
  if (aliases.length === 0) return [];
  return [`${aliases.length === 1 ? "Alias" : "Aliases"}: ${aliases.join(", ")}`];
}

/** A command's `--help`: usage, aliases, description, sections, options, sections. */
export function renderHelp(spec: CommandSpec): string {
  const usage = spec.usage.map((u, i) => `${i === 0 ? "Usage:" : "      "} skills ${u}`);
  const blocks = [
    [...usage, ...aliasLine(spec)].join("\n"),
    spec.description,
    ...(spec.sections ?? []).filter((s) => s.beforeOptions).map(section),
    [`${spec.optionsTitle ?? "Options"}:`, ...flagTable(spec.flags)].join("\n"),
    ...(spec.sections ?? []).filter((s) => !s.beforeOptions).map(section),
  ];
  return `${blocks.join("\n\n")}\n`;
}

/** `skills --help`: the command table (with aliases), global options, environment. */
export function renderTopLevelHelp(
  commands: readonly CommandIndexEntry[],
  version: string,
): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  const lines = commands.map((c) => {
    const aliases = c.aliases.length > 0 ? ` (${aliasLine(c)[0]!.toLowerCase()})` : "";
    return `  ${c.name.padEnd(width)}  ${c.summary}${aliases}`;
  });
  return `skills ${version} — install, run and serve Agent Skills

Usage: skills [global options] <command> [options]

Commands:
${lines.join("\n")}

Global options (before or after the command):
${flagTable(GLOBAL_FLAGS).join("\n")}

Environment: SKILLS_HOME (default ~/.agent/skills), AGENT_SKILLS (active skills:
a,b | all | all-untrusted | none). A .env file in the working directory is read.

Exit codes: 0 ok, 1 failure, 2 usage error, 124 timeout, 130 interrupted;
\`skills run\` passes the script's own exit code through.
`;
}
