/**
 * `skills context`: the tokens (o200k_base) of exactly what `skills chat` sends before the
 * first user message — system prompt plus tool definitions — measured on the request the
 * provider client really builds (captured, never sent), in total and per active skill,
 * plus what each skill's activation would add. The report is kept under the digest of its
 * inputs (agent/chat/accounting.ts): the same skills, prompt and tools are not counted twice.
 */

import { UsageError } from "../../core/errors.ts";
import type { Context } from "../../core/io.ts";
import { debug, warn } from "../../core/io.ts";
import { measureContext } from "../../agent/chat/accounting.ts";
// The configuration only: the AI SDK loads when a request must be captured (agent/chat/accounting.ts).
import {
  type ProviderConfig,
  resolveProviderConfig,
  routeSdkWarnings,
} from "../../agent/chat/provider_config.ts";
import { surfaceFactory } from "../../agent/library/surface_factory.ts";
import { defineCommand, type OptionsOf } from "../args.ts";
import { contextSpec, DEFAULT_MEASURE_MODEL } from "../specs/context.ts";
import { table, writeJson } from "../ui/render.ts";
import { openSession } from "../../runtime/catalog/catalog_session.ts";
import { budgetAgent, type ListingReport, listingReport } from "../../core/listing_budget.ts";

export const { help, parse } = defineCommand(
  contextSpec,
  ({ values, positionals, common }) => {
    if (positionals.length > 0) {
      throw new UsageError(
        `Unexpected argument '${positionals[0]}'`,
        "Run `skills context --help` for usage",
      );
    }
    if (values["context-window"] !== undefined && values.agent === undefined) {
      throw new UsageError(
        "--context-window needs --agent",
        "Run `skills context --help` for usage",
      );
    }
    return {
      ...common,
      skills: values.skills as string | undefined,
      agent: values.agent === undefined ? undefined : budgetAgent(values.agent),
      contextWindow: values["context-window"],
    };
  },
);

type ContextOptions = OptionsOf<typeof parse>;

/** SKILLS_MODEL when set (a key is not needed: nothing is sent), else the default format. */
function measuredProvider(env: Readonly<Record<string, string>>): {
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
  const report = await measureContext(config, active, openSurface, { home: session.home });
  const listing = options.agent === undefined ? undefined : listingReport(
    options.agent,
    session.catalog.skills.filter((s) => session.active.has(s.canonical))
      .map((s) => ({ name: s.canonical, manifest: s.manifest })),
    options.contextWindow,
  );
  if (options.json) {
    writeJson(ctx, {
      model: report.model,
      model_configured: configured,
      format: report.format,
      encoding: report.encoding,
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
      ...(listing ? { listing } : {}),
    });
    return 0;
  }
  for (const message of warnings) warn(ctx, message);
  const source = configured ? config.label : `${config.label} (SKILLS_MODEL not set)`;
  ctx.stdout.write(
    `Fixed context: ${report.fixed.fixed} tokens (${report.encoding}, request format of ${source})\n` +
      `  system prompt     ${report.fixed.system}\n` +
      `  tool definitions  ${report.fixed.tools} (${report.fixed.toolCount} tools)\n`,
  );
  if (listing) ctx.stdout.write(renderListing(listing));
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

/** Whether the listing fits the agent's budget, and what it cuts or leaves out. */
function renderListing(listing: ListingReport): string {
  const basis = listing.budget_basis === "fallback"
    ? "its fallback; give --context-window for the share of the window"
    : "its share of --context-window";
  const lines = [
    `${listing.label} listing: ${listing.used_chars} of ${listing.budget_chars} characters (${basis}) — ${
      listing.fits ? "fits" : "does not fit"
    }`,
    ...listing.cut.map((c) =>
      `  description cut: ${c.name} (${c.chars} characters, ${c.kept} kept)`
    ),
    ...listing.omitted.map((name) => `  not listed (past the budget): ${name}`),
  ];
  return `${lines.join("\n")}\n`;
}
