/** `skills check`: the doctor — skill status, activation hint, tools, home consistency. */

import { type Context, debug } from "../../core/io.ts";
import {
  type ConsistencyReport,
  inspectHome,
  isConsistent,
  repairHome,
} from "../../runtime/store/consistency.ts";
import { probeTool } from "../../runtime/os/probe.ts";
import { registryPath } from "../../runtime/store/registry.ts";
import { commonFlags, parseSpec } from "../args.ts";
import type { ParsedCommon } from "../command.ts";
import { renderHelp } from "../spec.ts";
import { checkSpec } from "../specs/check.ts";
import { shortSha, style, writeJson } from "../render.ts";
import { openSession } from "../session.ts";
import { UsageError } from "../../core/errors.ts";
import { VERSION } from "../../core/version.ts";

export const help = renderHelp(checkSpec);

export interface CheckOptions extends ParsedCommon {
  repair: boolean;
}

export function parse(argv: readonly string[]): CheckOptions {
  const { values, positionals } = parseSpec(checkSpec, argv);
  if (positionals.length > 0) {
    throw new UsageError(
      `Unexpected argument '${positionals[0]}'`,
      "Run `skills check --help` for usage",
    );
  }
  return { ...commonFlags(values), repair: values.repair === true };
}

export async function run(options: CheckOptions, ctx: Context): Promise<number> {
  const session = await openSession(ctx);
  let repaired: ConsistencyReport | null = null;
  if (options.repair) repaired = await repairHome(session.home);
  const consistency = await inspectHome(session.home);
  const { catalog, active } = session;
  const python = ctx.env.SKILLS_PYTHON || "python3";
  const uv = ctx.env.SKILLS_UV || "uv";
  const tools = await Promise.all([
    probeTool("python3", python),
    probeTool("uv", uv),
    probeTool("git", "git"),
  ]);
  debug(ctx, `home ${session.home} (registry ${registryPath(session.home)})`);
  for (const t of tools) {
    debug(
      ctx,
      `${t.name}: ${t.found ? `found ${t.version ?? ""}`.trim() : t.detail ?? "not found"}`,
    );
  }
  const skills = [
    ...catalog.skills.map((s) => ({
      name: s.canonical,
      status: "ok" as const,
      active: active.has(s.canonical),
      trusted: s.trusted,
      source: s.origin,
      scripts: s.scripts.length,
      toolsets: s.manifest.toolsets.length,
      commit_sha: s.entry?.commit_sha ?? null,
      reason: null as string | null,
    })),
    ...catalog.failures.map((f) => ({
      name: f.canonical,
      status: "error" as const,
      active: active.has(f.canonical),
      trusted: f.trusted,
      source: f.origin,
      scripts: 0,
      toolsets: 0,
      commit_sha: f.entry?.commit_sha ?? null,
      reason: f.reason as string | null,
    })),
  ].sort((a, b) => (a.name < b.name ? -1 : 1));
  const healthy = catalog.failures.length === 0 && isConsistent(consistency);
  const warnings = [...session.activationWarnings, ...catalog.notes];

  if (options.json) {
    writeJson(ctx, {
      version: VERSION,
      healthy,
      home: session.home,
      registry: registryPath(session.home),
      skills,
      active: [...active].sort(),
      tools,
      consistency,
      repaired,
      warnings,
    });
    return healthy ? 0 : 1;
  }
  const s = style(ctx.color);
  const out: string[] = [`skills ${VERSION}`, `Home: ${session.home}`, "", "Skills:"];
  for (const skill of skills) {
    const state = skill.active ? "active" : "inactive";
    if (skill.status === "error") {
      out.push(`  ${s.red("✗")} ${skill.name} (${state}) - Load failed: ${skill.reason}`);
      continue;
    }
    const mark = skill.active ? s.green("✓") : "○";
    const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
    const tag = skill.source === "core" ? "core" : shortSha(skill.commit_sha);
    const trust = skill.trusted ? "" : ` ${s.yellow("(untrusted)")}`;
    out.push(
      `  ${mark} ${skill.name} (${state}) - ${plural(skill.scripts, "script")}, ${
        plural(skill.toolsets, "toolset")
      } [${tag}]${trust}`,
    );
  }
  if (active.size === 0) {
    const example = skills.find((x) => x.status === "ok")?.name ?? "<name>";
    out.push("", `To enable: export AGENT_SKILLS=${example}`);
  }
  for (const w of warnings) out.push(`${s.yellow("warning")}: ${w}`);
  out.push("", "Tools:");
  for (const t of tools) {
    const mark = t.found ? s.green("✓") : t.name === "uv" ? "○" : s.red("✗");
    const why = t.found ? "" : ` - ${t.detail ?? "unavailable"}`;
    const note = !t.found && t.name === "uv"
      ? " (optional: needed only for scripts that declare dependencies)"
      : "";
    out.push(`  ${mark} ${t.name}${t.version ? ` ${t.version}` : ""}${why}${note}`);
  }
  out.push("", "Home:");
  if (repaired) {
    out.push(
      `  repaired: ${repaired.missing.length} entries without files dropped, ${repaired.orphans.length} orphans moved to .trash, ${repaired.leftovers.length} leftovers cleared`,
    );
  }
  if (isConsistent(consistency)) out.push(`  ${s.green("✓")} registry and skill directories agree`);
  for (const m of consistency.missing) {
    out.push(`  ${s.red("✗")} registry entry '${m}' has no files`);
  }
  for (const o of consistency.orphans) out.push(`  ${s.red("✗")} orphaned skill directory ${o}`);
  if (!isConsistent(consistency)) out.push("  Run `skills check --repair` to fix");
  if (consistency.leftovers.length > 0) {
    out.push(
      `  ○ ${consistency.leftovers.length} leftover(s) from interrupted commands (cleared by the next change)`,
    );
  }
  ctx.stdout.write(out.join("\n") + "\n");
  return healthy ? 0 : 1;
}
