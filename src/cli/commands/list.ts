/** `skills list`: every discovered skill, sorted by canonical name. */

import type { Context } from "../../core/io.ts";
import { warn } from "../../core/io.ts";
import { commonFlags, parseSpec } from "../args.ts";
import type { ParsedCommon } from "../command.ts";
import { renderHelp } from "../spec.ts";
import { listSpec } from "../specs/list.ts";
import { shortSha, table, writeJson } from "../render.ts";
import { openSession } from "../session.ts";
import { type RunState, runStates } from "../../runtime/trust/gate.ts";
import { UsageError } from "../../core/errors.ts";

export const help = renderHelp(listSpec);

type ListOptions = ParsedCommon;

export function parse(argv: readonly string[]): ListOptions {
  const { values, positionals } = parseSpec(listSpec, argv);
  if (positionals.length > 0) {
    throw new UsageError(
      `Unexpected argument '${positionals[0]}'`,
      "Run `skills list --help` for usage",
    );
  }
  return commonFlags(values);
}

/** `state` (ok, untrusted, modified) and its reason, for one loaded skill. */
function stateFields(state: RunState | undefined) {
  if (state === undefined || state.state === "ok") {
    return { state: "ok" as const, state_reason: null };
  }
  return { state: state.state, state_reason: state.reason };
}

export async function run(options: ListOptions, ctx: Context): Promise<number> {
  const session = await openSession(ctx);
  const { catalog, active } = session;
  const states = await runStates(catalog.skills, session.home);
  const rows = [
    ...catalog.skills.map((s) => ({
      name: s.name,
      canonical: s.canonical,
      version: s.manifest.version ?? null,
      description: s.manifest.description,
      source: s.origin,
      active: active.has(s.canonical),
      trusted: s.trusted,
      commit_sha: s.entry?.commit_sha ?? null,
      scripts: s.scripts.length,
      toolsets: s.manifest.toolsets.length,
      path: s.dir,
      status: "ok" as const,
      ...stateFields(states.get(s.canonical)),
    })),
    ...catalog.failures.map((f) => ({
      name: f.name,
      canonical: f.canonical,
      version: null,
      description: null,
      source: f.origin,
      active: active.has(f.canonical),
      trusted: f.trusted,
      commit_sha: f.entry?.commit_sha ?? null,
      scripts: 0,
      toolsets: 0,
      path: f.dir,
      status: "error" as const,
      error: f.reason,
      state: "broken" as const,
      state_reason: f.reason,
    })),
  ].sort((a, b) => (a.canonical < b.canonical ? -1 : a.canonical > b.canonical ? 1 : 0));
  const warnings = [...session.activationWarnings, ...catalog.notes];

  if (options.json) {
    writeJson(ctx, { skills: rows, warnings });
    return 0;
  }
  for (const w of warnings) warn(ctx, w);
  if (rows.length === 0) {
    ctx.stdout.write("No skills found. Install one with `skills add <git-url|owner/repo|path>`.\n");
    return 0;
  }
  ctx.stdout.write(table(
    ["NAME", "VERSION", "SOURCE", "ACTIVE", "TRUSTED", "SHA", "SCRIPTS", "TOOLSETS"],
    rows.map((r) => [
      r.status === "error" ? `${r.canonical} (broken)` : r.canonical,
      r.version ?? "-",
      r.source,
      r.active ? "yes" : "no",
      r.state === "modified" ? "changed" : r.trusted ? "yes" : "no",
      shortSha(r.commit_sha),
      String(r.scripts),
      String(r.toolsets),
    ]),
  ));
  const broken = rows.filter((r) => r.status === "error");
  if (broken.length > 0) {
    ctx.stdout.write(`\nBroken (not loaded):\n`);
    for (const r of broken) ctx.stdout.write(`  ${r.canonical}: ${r.state_reason}\n`);
  }
  return 0;
}
