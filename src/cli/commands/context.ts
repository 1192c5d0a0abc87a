/**
 * `skills context`: the tokens (o200k_base) of exactly what `skills chat` sends before the
 * first user message — system prompt plus tool definitions — measured on the request the
 * provider client really builds (captured, never sent), in total and per active skill,
 * plus what each skill's activation would add.
 */

import { UsageError } from "../../core/errors.ts";
import type { Context } from "../../core/io.ts";
import { debug, warn } from "../../core/io.ts";
import { measureContext } from "../../agent/accounting.ts";
import {
  type ProviderConfig,
  resolveProviderConfig,
  routeSdkWarnings,
} from "../../agent/providers.ts";
import { surfaceFactory } from "../../agent/surface_factory.ts";
import { ENCODING } from "../../agent/tokens.ts";
import { commonFlags, parseCommand } from "../args.ts";
import type { ParsedCommon } from "../command.ts";
import { table, writeJson } from "../render.ts";
import { openSession } from "../session.ts";

/** The request format measured when SKILLS_MODEL is not set. */
export const DEFAULT_MEASURE_MODEL = "openai:gpt-4o-mini";

export const help = `Usage: skills context [--skills a,b] [--json]

Count the tokens (o200k_base) of what \`skills chat\` sends before the first user
message: the system prompt plus the tool definitions. The figure comes from the request
the provider client really builds for SKILLS_MODEL (captured, never sent; the OpenAI
chat format of ${DEFAULT_MEASURE_MODEL} when SKILLS_MODEL is not set; no key needed).

Also shown per active skill: what it adds to that fixed overhead, and what one
activate_skill call would add to the next request (its instructions, resource list and
any toolset tools it mounts).

Options:
  --skills a,b   Active skills (overrides AGENT_SKILLS; also all, all-untrusted, none)
  --json         One JSON document: {total, system, tools, tool_count, skills: [...]}
  -v, --verbose  Debug logs on stderr
  -h, --help     Show this help
`;

export interface ContextOptions extends ParsedCommon {
  skills: string | undefined;
}

export function parse(argv: readonly string[]): ContextOptions {
  const { values, positionals } = parseCommand("context", argv, { skills: { type: "string" } });
  if (positionals.length > 0) {
    throw new UsageError(
      `Unexpected argument '${positionals[0]}'`,
      "Run `skills context --help` for usage",
    );
  }
  return { ...commonFlags(values), skills: values.skills as string | undefined };
}

/** SKILLS_MODEL when set (a key is not needed: nothing is sent), else the default format. */
export function measuredProvider(env: Readonly<Record<string, string>>): {
  config: ProviderConfig;
  configured: boolean;
} {
  const configured = (env.SKILLS_MODEL ?? "").trim() !== "";
  const source = configured ? env : { ...env, SKILLS_MODEL: DEFAULT_MEASURE_MODEL };
  return { config: resolveProviderConfig(source, { requireKey: false }), configured };
}

export async function run(options: ContextOptions, ctx: Context): Promise<number> {
  const { config, configured } = measuredProvider(ctx.env);
  const session = await openSession(ctx, options.skills);
  const warnings = [...session.activationWarnings];
  routeSdkWarnings();
  const openSurface = surfaceFactory({
    home: session.home,
    catalog: session.catalog,
    allowUntrusted: session.allowUntrusted,
    env: ctx.env,
    log: (message) => debug(ctx, message),
  });
  const active = session.catalog.skills
    .map((s) => s.canonical)
    .filter((name) => session.active.has(name));
  const report = await measureContext(config, active, openSurface);
  if (options.json) {
    writeJson(ctx, {
      model: report.model,
      model_configured: configured,
      format: report.format,
      encoding: ENCODING,
      active: report.active,
      total: report.fixed.fixed,
      system: report.fixed.system,
      tools: report.fixed.tools,
      tool_count: report.fixed.toolCount,
      tool_names: report.tools,
      skills: report.skills.map((s) => ({
        name: s.name,
        fixed: s.fixed,
        activation: s.activation,
        tools_added: s.toolsAdded,
        ...(s.activationError === undefined ? {} : { activation_error: s.activationError }),
      })),
      warnings,
    });
    return 0;
  }
  for (const message of warnings) warn(ctx, message);
  const source = configured ? config.label : `${config.label} (SKILLS_MODEL not set)`;
  ctx.stdout.write(
    `Fixed context: ${report.fixed.fixed} tokens (${ENCODING}, request format of ${source})\n` +
      `  system prompt     ${report.fixed.system}\n` +
      `  tool definitions  ${report.fixed.tools} (${report.fixed.toolCount} tools)\n`,
  );
  if (report.skills.length === 0) {
    ctx.stdout.write("No active skills (set AGENT_SKILLS or pass --skills a,b).\n");
    return 0;
  }
  ctx.stdout.write("\n");
  ctx.stdout.write(table(
    ["SKILL", "FIXED", "ON ACTIVATION", "NOTE"],
    report.skills.map((s) => [
      s.name,
      `+${s.fixed}`,
      `+${s.activation}`,
      s.activationError !== undefined
        ? `activation fails: ${s.activationError.split("\n")[0]}`
        : s.toolsAdded.length > 0
        ? `mounts ${s.toolsAdded.join(", ")}`
        : "",
    ]),
  ));
  return 0;
}
