/** `skills list`: every discovered skill, sorted by canonical name. */

import type { Context } from "../../core/io.ts";
import { warn } from "../../core/io.ts";
import { commonFlags, parseSpec } from "../args.ts";
import type { ParsedCommon } from "../command.ts";
import { renderHelp } from "../spec.ts";
import { listSpec } from "../specs/list.ts";
import { shortSha, table, writeJson } from "../render.ts";
import { openSession } from "../session.ts";
import { UsageError } from "../../core/errors.ts";

export const help = renderHelp(listSpec);

export type ListOptions = ParsedCommon;

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

export async function run(options: ListOptions, ctx: Context): Promise<number> {
  const session = await openSession(ctx);
  const { catalog, active } = session;
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
      r.status === "error" ? `${r.name} (broken)` : r.name,
      r.version ?? "-",
      r.source,
      r.active ? "yes" : "no",
      r.trusted ? "yes" : "no",
      shortSha(r.commit_sha),
      String(r.scripts),
      String(r.toolsets),
    ]),
  ));
  return 0;
}
