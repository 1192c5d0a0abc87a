/** `skills list`: every discovered skill, sorted by canonical name. */

import { skillVersion } from "../../core/manifest/semver.ts";
import type { Context } from "../../core/io.ts";
import { warn } from "../../core/io.ts";
import { defineCommand, type OptionsOf } from "../args.ts";
import { listSpec } from "../specs/list.ts";
import { shortSha, table, writeJson } from "../ui/render.ts";
import { dependencyGraph, openSession } from "../../runtime/catalog/catalog_session.ts";
import { inert } from "../../core/terminal_text.ts";
import { type RunState, runStates } from "../../runtime/trust/gate.ts";
import { UsageError } from "../../core/errors.ts";

export const { help, parse } = defineCommand(
  listSpec,
  ({ values, positionals, common }) => {
    if (positionals.length > 0) {
      throw new UsageError(
        `Unexpected argument '${positionals[0]}'`,
        "Run `skills list --help` for usage",
      );
    }
    return { ...common, tree: values.tree === true };
  },
);

type ListOptions = OptionsOf<typeof parse>;

/** `state` (ok, untrusted, modified) and its reason, for one loaded skill. */
function stateFields(state: RunState | undefined) {
  if (state === undefined || state.state === "ok") {
    return { state: "ok" as const, state_reason: null };
  }
  return { state: state.state, state_reason: state.reason };
}

/**
 * One listing over one session: the catalog, each skill's run state from the stats the
 * catalog took (never taken twice), its rows, then JSON or the table.
 */
export async function run(options: ListOptions, ctx: Context): Promise<number> {
  const session = await openSession(ctx);
  const { catalog, active } = session;
  const states = await runStates(catalog.skills, session.home, catalog.listingStats);
  const rows = listedRows(catalog, active, states);
  const warnings = [...session.activationWarnings, ...catalog.notes];
  const shadowed = shadowedRows(catalog);
  if (options.tree) {
    const graph = dependencyGraph(catalog);
    if (options.json) writeJson(ctx, { tree: treeOf(rows.map((r) => r.canonical), graph) });
    else writeTree(ctx, rows.map((r) => r.canonical), graph);
    return 0;
  }
  if (options.json) {
    writeJson(ctx, { skills: rows, shadowed, warnings });
    return 0;
  }
  writeTable(ctx, catalog, rows, shadowed, warnings);
  return 0;
}

/** A skill and what it requires, down the graph (a cycle stops where it closes). */
interface TreeNode {
  name: string;
  requires: TreeNode[];
}

/** The skills nothing requires at the top, each with its dependencies below. */
function treeOf(names: readonly string[], graph: ReadonlyMap<string, string[]>): TreeNode[] {
  const required = new Set([...graph.values()].flat());
  const grow = (name: string, above: readonly string[]): TreeNode => ({
    name,
    requires: (graph.get(name) ?? []).filter((d) => !above.includes(d)).sort()
      .map((d) => grow(d, [...above, name])),
  });
  return [...new Set(names)].filter((n) => !required.has(n)).sort().map((n) => grow(n, []));
}

function writeTree(ctx: Context, names: readonly string[], graph: ReadonlyMap<string, string[]>) {
  const write = (node: TreeNode, indent: string) => {
    ctx.stdout.write(`${indent}${inert(node.name)}\n`);
    for (const child of node.requires) write(child, `${indent}  `);
  };
  for (const node of treeOf(names, graph)) write(node, "");
}

/** The session's catalog, as `list` reads it. */
type Listed = Awaited<ReturnType<typeof openSession>>["catalog"];

/**
 * A row per loaded or broken skill, sorted by canonical name, each with what it hides:
 * looked up by its name and folder (most listings hide nothing).
 */
function listedRows(
  catalog: Listed,
  active: ReadonlySet<string>,
  states: ReadonlyMap<string, RunState>,
) {
  const hidden = new Map<string, { scope: string; path: string }[]>();
  for (const h of catalog.shadowed) {
    const key = `${h.canonical}\0${h.by.dir}`;
    hidden.set(key, [...hidden.get(key) ?? [], { scope: h.scope, path: h.dir }]);
  }
  const shadowsOf = (canonical: string, path: string) => hidden.get(`${canonical}\0${path}`) ?? [];
  return [
    ...catalog.skills.map((s) => ({
      name: s.name,
      canonical: s.canonical,
      version: skillVersion(s.manifest) ?? null,
      description: s.manifest.description,
      source: s.origin,
      scope: s.scope,
      active: active.has(s.canonical),
      trusted: s.trusted,
      commit_sha: s.entry?.commit_sha ?? s.project?.locked?.commit ?? null,
      scripts: s.scripts.length,
      toolsets: s.manifest.toolsets.length,
      path: s.dir,
      status: "ok" as const,
      ...stateFields(states.get(s.canonical)),
      shadows: shadowsOf(s.canonical, s.dir),
    })),
    ...catalog.failures.map((f) => ({
      name: f.name,
      canonical: f.canonical,
      version: null,
      description: null,
      source: f.origin,
      scope: f.scope,
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
      shadows: shadowsOf(f.canonical, f.dir),
    })),
  ].sort((a, b) => (a.canonical < b.canonical ? -1 : a.canonical > b.canonical ? 1 : 0));
}

type Row = ReturnType<typeof listedRows>[number];

/**
 * A skill hidden by one of the same name in a scope of higher precedence is never dropped
 * silently: it is listed, with what hides it.
 */
function shadowedRows(catalog: Listed) {
  return catalog.shadowed.map((h) => ({
    name: h.canonical,
    scope: h.scope,
    path: h.dir,
    status: "shadowed" as const,
    shadowed_by: { scope: h.by.scope, path: h.by.dir },
  }));
}

/**
 * The listing for a person: the warnings on stderr (but the shadowing notes, which the
 * Shadowed section says), the table, then what is shadowed and what is broken.
 */
function writeTable(
  ctx: Context,
  catalog: Listed,
  rows: readonly Row[],
  shadowed: ReturnType<typeof shadowedRows>,
  warnings: readonly string[],
): void {
  const shadowNotes = new Set(
    catalog.notes.filter((n) => catalog.shadowed.some((h) => n.includes(`(${h.scope}, ${h.dir})`))),
  );
  for (const w of warnings) if (!shadowNotes.has(w)) warn(ctx, w);
  if (rows.length === 0) {
    ctx.stdout.write("No skills found. Install one with `skills add <git-url|owner/repo|path>`.\n");
    return;
  }
  ctx.stdout.write(table(
    ["NAME", "VERSION", "SOURCE", "ACTIVE", "TRUSTED", "SCOPE", "SHA", "SCRIPTS", "TOOLSETS"],
    rows.map((r) => [
      r.status === "error" ? `${r.canonical} (broken)` : r.canonical,
      r.version ?? "-",
      r.source,
      r.active ? "yes" : "no",
      r.state === "modified" ? "changed" : r.trusted ? "yes" : "no",
      r.scope,
      shortSha(r.commit_sha),
      String(r.scripts),
      String(r.toolsets),
    ]),
  ));
  if (shadowed.length > 0) {
    ctx.stdout.write(`\nShadowed (a skill of the same name comes first):\n`);
    for (const h of shadowed) {
      ctx.stdout.write(
        `  ${h.name} (${h.scope}, ${h.path}) by the ${h.shadowed_by.scope} skill in ${h.shadowed_by.path}\n`,
      );
    }
  }
  const broken = rows.filter((r) => r.status === "error");
  if (broken.length > 0) {
    ctx.stdout.write(`\nBroken (not loaded):\n`);
    for (const r of broken) ctx.stdout.write(`  ${r.canonical}: ${r.state_reason}\n`);
  }
}
