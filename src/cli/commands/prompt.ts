/**
 * `skills prompt [--skills a,b] [--format xml|markdown]`: prints the `<available_skills>`
 * block for agents that read a system prompt or an AGENTS.md file. The XML is rendered by
 * the same function that builds the chat loop's and the MCP server's system prompt.
 */

import { renderAvailableSkills } from "../../agent/system_prompt.ts";
import { UsageError } from "../../core/errors.ts";
import { type Context, warn } from "../../core/io.ts";
import { commonFlags, parseCommand } from "../args.ts";
import type { ParsedCommon } from "../command.ts";
import { writeJson } from "../render.ts";
import { openSession } from "../session.ts";

export const help =
  `Usage: skills prompt [--skills a,b] [--format xml|markdown] [--no-location] [--json]

Print the <available_skills> block for the active skills, for agents that read a
system prompt or an AGENTS.md file: each skill's name, description and, as
<location>, the absolute path of its SKILL.md. Active skills come from
AGENT_SKILLS (a,b | all | all-untrusted | none) unless --skills is given.

The XML form is rendered by the same code that builds the system prompt of
\`skills chat\` and \`skills mcp\`: it is byte-for-byte the block they send.

Options:
  --skills a,b       Active skills for this command (overrides AGENT_SKILLS)
  --format F         xml (default) or markdown
  --no-location      Leave out <location>
  --json             {"format", "skills": [{name, description, location}], "text"}
  -h, --help         Show this help

Examples:
  skills prompt --skills kalshi-markets,hello-extended
  AGENT_SKILLS=all skills prompt --format markdown >> AGENTS.md
`;

export interface PromptOptions extends ParsedCommon {
  skills: string | undefined;
  format: "xml" | "markdown";
  location: boolean;
}

const HINT = "Run `skills prompt --help` for usage";

export function parse(argv: readonly string[]): PromptOptions {
  const { values, positionals } = parseCommand("prompt", argv, {
    skills: { type: "string" },
    format: { type: "string" },
    "no-location": { type: "boolean" },
  });
  const flags = commonFlags(values);
  if (positionals.length > 0 && !flags.help) {
    throw new UsageError(`Unexpected argument '${positionals[0]}'`, HINT);
  }
  const format = (values.format ?? "xml").toLowerCase();
  if (format !== "xml" && format !== "markdown" && format !== "md") {
    throw new UsageError(`Unknown format '${values.format}' (use xml or markdown)`, HINT);
  }
  return {
    ...flags,
    skills: typeof values.skills === "string" ? values.skills : undefined,
    format: format === "xml" ? "xml" : "markdown",
    location: values["no-location"] !== true,
  };
}

export async function run(options: PromptOptions, ctx: Context): Promise<number> {
  const session = await openSession(ctx, options.skills);
  for (const warning of session.activationWarnings) warn(ctx, warning);
  const skills = session.catalog.skills
    .filter((s) => session.active.has(s.canonical))
    .map((s) => ({
      name: s.canonical,
      description: s.manifest.description,
      ...(options.location ? { location: s.skillMdPath } : {}),
    }));
  const text = renderAvailableSkills(skills, options.format);
  if (options.json) {
    writeJson(ctx, {
      format: options.format,
      skills: skills.map((s) => ({ ...s, location: s.location ?? null })),
      text,
    });
    return 0;
  }
  if (skills.length === 0) {
    warn(
      ctx,
      session.active.size > 0
        ? "No active skill loaded (see the warnings above)"
        : "No active skills: set AGENT_SKILLS (e.g. AGENT_SKILLS=all) or pass --skills a,b",
    );
    return 0;
  }
  ctx.stdout.write(`${text}\n`);
  return 0;
}
