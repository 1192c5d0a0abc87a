/**
 * `skills prompt [--skills a,b] [--format xml|markdown]`: prints the `<available_skills>`
 * block for agents that read a system prompt or an AGENTS.md file. The XML is rendered by
 * the same function that builds the chat loop's and the MCP server's system prompt.
 */

import { renderAvailableSkills } from "../../agent/surface/system_prompt.ts";
import { UsageError } from "../../core/errors.ts";
import { type Context, warn } from "../../core/io.ts";
import { defineCommand, type OptionsOf } from "../args.ts";
import { promptSpec } from "../specs/prompt.ts";
import { writeJson } from "../ui/render.ts";
import { openSession } from "../../runtime/catalog/catalog_session.ts";
import { modelCanInvoke } from "../../agent/surface/invocation.ts";
import { listedDescription } from "../../core/listing_budget.ts";

const HINT = "Run `skills prompt --help` for usage";

export const { help, parse } = defineCommand(
  promptSpec,
  ({ values, positionals, common }) => {
    const flags = common;
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
      format: format === "xml" ? "xml" as const : "markdown" as const,
      location: values["no-location"] !== true,
    };
  },
);

type PromptOptions = OptionsOf<typeof parse>;

export async function run(options: PromptOptions, ctx: Context): Promise<number> {
  const session = await openSession(ctx, options.skills);
  for (const warning of session.activationWarnings) warn(ctx, warning);
  // What the model is told: skills it may not start itself (disable-model-invocation) are not.
  const skills = session.catalog.skills
    .filter((s) => session.active.has(s.canonical) && modelCanInvoke(s))
    .map((s) => ({
      name: s.canonical,
      description: listedDescription(s.manifest),
      ...(options.location ? { location: s.skillMdPath } : {}),
    }));
  const text = renderAvailableSkills(skills, options.format);
  const scopes = new Map(session.catalog.skills.map((s) => [s.canonical, s.scope]));
  if (options.json) {
    writeJson(ctx, {
      format: options.format,
      skills: skills.map((s) => ({
        ...s,
        location: s.location ?? null,
        scope: scopes.get(s.name) ?? null,
      })),
      text,
    });
    return 0;
  }
  // Where each skill comes from, for the person (stderr): the block itself is for a model.
  if (skills.some((s) => scopes.get(s.name) !== "bundled")) {
    ctx.stderr.write(
      `skills: ${skills.map((s) => `${s.name} (${scopes.get(s.name)})`).join(", ")}\n`,
    );
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
