/** `skills link [<name>...] --agent <agent>...`: trusted skills where agents read them. */

import { agentLabel, type AgentName, parseAgentWords } from "../../core/agents.ts";
import { UsageError } from "../../core/errors.ts";
import type { Context } from "../../core/io.ts";
import { warn } from "../../core/io.ts";
import { canonicalSkillName } from "../../core/names.ts";
import { findSkill, type LoadedSkill } from "../../runtime/catalog/catalog.ts";
import { detectedAgents, type LinkScope, linkSkills } from "../../runtime/project/links.ts";
import { renderLinks } from "../ui/project_ui.ts";
import { defineCommand, type OptionsOf } from "../args.ts";
import { linkSpec } from "../specs/link.ts";
import { writeJson } from "../ui/render.ts";
import { openSession } from "../../runtime/catalog/catalog_session.ts";

export const { help, parse } = defineCommand(
  linkSpec,
  ({ values, positionals, common }) => {
    const flags = common;
    const base = {
      ...flags,
      names: [],
      agents: [] as AgentName[],
      allDetected: false,
      global: values.global === true,
      copy: values.copy === true,
    };
    if (flags.help) return base;
    const { agents, allDetected } = parseAgentWords(values.agent ?? []);
    if (agents.length === 0 && !allDetected) {
      throw new UsageError("Name at least one --agent", "Run `skills link --help` for the agents");
    }
    return { ...base, agents, allDetected, names: positionals.map((n) => canonicalSkillName(n)) };
  },
);

type LinkOptions = OptionsOf<typeof parse>;

/**
 * The agents to link for: those named, plus with `all-detected` the agents installed here (said
 * on stderr, so the user sees which). Undefined when `all-detected` alone found none.
 */
function withDetected(options: LinkOptions, ctx: Context): AgentName[] | undefined {
  if (!options.allDetected) return options.agents;
  const detected = detectedAgents(ctx.env);
  const agents = [...new Set([...options.agents, ...detected])];
  if (detected.length === 0) {
    warn(ctx, "No agent was detected on this machine (none of their folders exists)");
  } else {
    warn(ctx, `Detected: ${detected.map(agentLabel).join(", ")}`);
  }
  if (agents.length > 0) return agents;
  if (options.json) writeJson(ctx, { links: [] });
  return undefined;
}

export async function run(options: LinkOptions, ctx: Context): Promise<number> {
  const agents = withDetected(options, ctx);
  if (agents === undefined) return 0;
  const session = await openSession(ctx);
  const { catalog, home } = session;
  const project = catalog.project?.root;
  const scope: LinkScope = options.global || project === undefined
    ? { kind: "user" }
    : { kind: "project", root: project.root };
  const wantedScope = scope.kind === "user" ? "user" : "project";
  const skills: LoadedSkill[] = options.names.length > 0
    ? options.names.map((name) => findSkill(catalog, name))
    : catalog.skills.filter((s) => s.scope === wantedScope && s.trusted);
  if (skills.length === 0) {
    warn(ctx, `No trusted ${wantedScope} skills to link: review one, then \`skills trust <name>\``);
    if (options.json) writeJson(ctx, { links: [] });
    return 0;
  }
  const outcomes = await linkSkills(home, ctx.env, skills, agents, scope, {
    copy: options.copy,
  });
  const refused = outcomes.filter((o) => o.status === "refused");
  if (options.json) writeJson(ctx, { scope: scope.kind, links: outcomes });
  else ctx.stdout.write(renderLinks(outcomes).join("\n") + "\n");
  return refused.length === 0 ? 0 : 1;
}
