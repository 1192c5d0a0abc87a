/** `skills add <source>`: clone or copy, discover, validate, summarise, confirm, install. */

import { UsageError } from "../../core/errors.ts";
import {
  parseSkillSelector,
  type RefFlags,
  skillPathSelector,
} from "../../core/sources/sources.ts";
import { canonicalSkillName } from "../../core/names.ts";
import type { Context } from "../../core/io.ts";
import { type AgentName, parseAgentWords } from "../../core/agents.ts";
import { skillsHome } from "../../runtime/store/home.ts";
import { addFromNodeModules, addWorkflow } from "../../runtime/workflows/add.ts";
import { defineCommand, type OptionsOf, requireOne } from "../args.ts";
import { addSpec } from "../specs/add.ts";
import { addAsker, renderAdded } from "../ui/add_ui.ts";

/** Ctrl-C aborts ctx.signal: git is stopped and everything staged is rolled back. */
export const handlesInterrupt = true;

export const { help, parse } = defineCommand(
  addSpec,
  ({ values, positionals, common }) => {
    const flags = common;
    const empty = {
      source: "",
      refs: {},
      skills: [],
      name: undefined,
      renames: new Map<string, string>(),
      list: false,
      yes: false,
      allowRisky: false,
      allowUnsigned: false,
      project: false,
      agents: [] as AgentName[],
      allDetected: false,
      fromNodeModules: false,
    };
    if (flags.help) return { ...flags, ...empty };
    const fromNodeModules = values["from-node-modules"] === true;
    if (fromNodeModules && positionals.length > 0) {
      throw new UsageError("--from-node-modules takes no source: it reads ./node_modules");
    }
    if (fromNodeModules && values.list) {
      throw new UsageError("--from-node-modules installs; it takes no --list");
    }
    const source = fromNodeModules ? "" : requireOne("add", positionals, "source");
    const skills = (values.skill ?? []).map(parseSkillSelector);
    const { name, renames } = parseNames(values.name ?? [], skills);
    const renaming = name !== undefined || renames.size > 0;
    if (values.list && (renaming || values.yes)) {
      throw new UsageError("--list installs nothing; it takes no --name or --yes");
    }
    const refs: RefFlags = { ref: values.ref, branch: values.branch, tag: values.tag };
    const { agents, allDetected } = parseAgentWords(values.agent ?? []);
    if (values.list && (agents.length > 0 || allDetected)) {
      throw new UsageError("--list installs nothing; it takes no --agent");
    }
    return {
      ...flags,
      source,
      refs,
      skills,
      /** `--name NEW`: the one skill installed under another name. */
      name,
      /** `--name OLD=NEW` (repeatable): the skill published as OLD installed as NEW. */
      renames,
      list: values.list === true,
      yes: values.yes === true,
      allowRisky: values["allow-risky"] === true,
      /** `--allow-unsigned`: past the user's and project's signature rules (recorded). */
      allowUnsigned: values["allow-unsigned"] === true,
      /** `--project`: into `<repo>/.agents/skills`, recorded in skills-lock.json. */
      project: values.project === true,
      /** `--agent`: link what was installed for these agents. */
      agents,
      /** `--agent all-detected`: and for the agents installed on this machine. */
      allDetected,
      /** `--from-node-modules`: the skills the packages of ./node_modules declare. */
      fromNodeModules,
    };
  },
);

type AddOptions = OptionsOf<typeof parse>;

/**
 * `--name NEW` (one skill) or `--name OLD=NEW` (repeatable, any skill of a bulk install);
 * every NEW must be a valid name. The two forms do not mix.
 */
function parseNames(
  values: readonly string[],
  skills: readonly string[],
): { name: string | undefined; renames: Map<string, string> } {
  const renames = new Map<string, string>();
  const plain: string[] = [];
  for (const value of values) {
    const eq = value.indexOf("=");
    const next = eq === -1 ? value : value.slice(eq + 1);
    try {
      canonicalSkillName(next);
    } catch (error) {
      throw new UsageError(`Invalid --name: ${(error as Error).message}`);
    }
    if (eq === -1) plain.push(value);
    else {
      const given = value.slice(0, eq);
      if (given === "") {
        throw new UsageError(`Invalid --name '${value}': OLD=NEW needs the OLD name`);
      }
      // OLD may be a skill's path in the source (`preview/pdf=pdf-preview`): of two skills
      // published under one name, the path tells which is renamed.
      const old = given.includes("/") ? skillPathSelector(given, "--name") : given;
      if (renames.has(old)) throw new UsageError(`--name renames '${old}' twice`);
      renames.set(old, next);
    }
  }
  if (plain.length > 0 && (plain.length > 1 || renames.size > 0)) {
    throw new UsageError(
      "--name NEW renames a single skill; to rename several, give --name OLD=NEW for each",
    );
  }
  const name = plain[0];
  if (name !== undefined && (skills.includes("*") || skills.length > 1)) {
    throw new UsageError(
      "--name renames a single skill; it cannot be combined with several --skill",
      "Rename skills of a bulk install with --name OLD=NEW (repeatable)",
    );
  }
  return { name, renames };
}

/**
 * Adds the source's skills (or, with --from-node-modules, those of every package in
 * ./node_modules) with the terminal as the asker, renders the outcome.
 */
export async function run(options: AddOptions, ctx: Context): Promise<number> {
  const request = {
    home: skillsHome(ctx.env, ctx.cwd),
    cwd: ctx.cwd,
    env: ctx.env,
    signal: ctx.signal,
    skills: options.skills,
    scope: options.project ? "project" as const : "user" as const,
    list: options.list,
    allowUnsigned: options.allowUnsigned,
    plan: { rename: options.name, renames: options.renames, allowRisky: options.allowRisky },
    agents: options.agents,
    allDetected: options.allDetected,
  };
  const asker = addAsker(ctx, options);
  if (options.fromNodeModules) {
    const outcomes = await addFromNodeModules(request, asker);
    return Math.max(0, ...outcomes.map((outcome) => renderAdded(ctx, options, outcome)));
  }
  const outcome = await addWorkflow(
    { ...request, source: options.source, refs: options.refs },
    asker,
  );
  return renderAdded(ctx, options, outcome);
}
