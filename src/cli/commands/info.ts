/** `skills info <name>`: manifest, scripts, toolsets, resources, provenance, tool names. */

import { describeNetworkList, networkList } from "../../core/policy/net_grants.ts";
import { SCRIPT_WRITES_SUMMARY } from "../../core/policy/workspace.ts";
import { qualifiedToolName } from "../../core/manifest/names.ts";
import { inert } from "../../core/terminal_text.ts";
import { findSkill, type ShadowedSkill, type SkillRecord } from "../../runtime/catalog/catalog.ts";
import type { Context } from "../../core/io.ts";
import { commonFlags, parseSpec, requireOne } from "../args.ts";
import type { ParsedCommon } from "../command.ts";
import { renderHelp } from "../spec.ts";
import { infoSpec } from "../specs/info.ts";
import { writeJson } from "../ui/render.ts";
import { openSession } from "../session.ts";

export const help = renderHelp(infoSpec);

interface InfoOptions extends ParsedCommon {
  name: string;
}

export function parse(argv: readonly string[]): InfoOptions {
  const { values, positionals } = parseSpec(infoSpec, argv);
  const flags = commonFlags(values);
  if (flags.help) return { ...flags, name: "" };
  return { ...flags, name: requireOne("info", positionals, "skill name") };
}

/**
 * The tools a model sees for this skill: the skill tools, then its toolset tools (mounted
 * after activation). Toolset method names come from the toolset host, which runs the
 * skill's Python, so they are listed only for a trusted, unmodified skill; otherwise the
 * name pattern is shown with the reason.
 */
async function agentToolNames(
  skill: SkillRecord,
  home: string,
  env: Record<string, string>,
): Promise<string[]> {
  const names = ["activate_skill", "read_skill_file"];
  if (skill.scripts.length > 0) names.push("script_list", "script_help", "script_run");
  if (skill.manifest.toolsets.length === 0) return names;
  try {
    const { ToolsetHost } = await import("../../runtime/exec/toolset_host.ts");
    const host = await ToolsetHost.start(skill, { home, env, timeoutMs: 20_000 });
    try {
      names.push(...host.methods.map((m) => qualifiedToolName(skill.canonical, m.name)));
    } finally {
      await host.close();
    }
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
    names.push(
      `${qualifiedToolName(skill.canonical, "*")} (toolset methods, not listed: ${reason})`,
    );
  }
  return names;
}

function describeSkill(
  skill: SkillRecord,
  active: boolean,
  tools: string[],
  shadows: readonly ShadowedSkill[],
) {
  const m = skill.manifest;
  const locked = skill.project?.locked;
  return {
    name: skill.name,
    canonical: skill.canonical,
    description: m.description,
    version: m.version ?? null,
    author: m.author ?? null,
    license: m.license ?? null,
    repository: m.repository ?? null,
    compatibility: m.compatibility ?? null,
    allowed_tools: m.allowedTools ?? null,
    metadata: m.metadata ?? null,
    min_agent_base_version: m.minAgentVersion ?? null,
    max_agent_base_version: m.maxAgentVersion ?? null,
    permissions: { env: m.envPatterns, network: networkList(m.network) },
    limits: m.limits ?? null,
    source: skill.origin,
    scope: skill.scope,
    source_url: skill.entry?.source.url ?? locked?.source.url ?? null,
    source_subpath: skill.entry?.source.subpath ?? locked?.source.subpath ?? null,
    commit_sha: skill.entry?.commit_sha ?? locked?.commit ?? null,
    branch: skill.entry?.branch ?? locked?.branch ?? null,
    tag: skill.entry?.tag ?? locked?.tag ?? null,
    ref: skill.entry?.ref ?? locked?.ref ?? null,
    signed_by: signer(skill.entry?.signed ?? locked?.signed),
    installed_at: skill.entry?.installed_at ?? null,
    updated_at: skill.entry?.updated_at ?? null,
    trusted: skill.trusted,
    trusted_digest: skill.entry?.trusted_digest ?? skill.project?.trustedDigest ?? null,
    project: skill.project === undefined ? null : {
      root: skill.project.root,
      path: skill.project.rel,
      locked: locked !== undefined,
    },
    shadows: shadows.map((h) => ({ scope: h.scope, path: h.dir })),
    active,
    path: skill.dir,
    skill_md: skill.skillMdPath,
    scripts: skill.scripts.map((s) => ({ name: s.name, file: s.file, path: s.path })),
    toolsets: m.toolsets,
    references: skill.references,
    assets: skill.assets,
    files: skill.files,
    tools,
    warnings: skill.warnings.map((w) => w.message),
  };
}

export async function run(options: InfoOptions, ctx: Context): Promise<number> {
  const session = await openSession(ctx);
  const skill = findSkill(session.catalog, options.name);
  const tools = await agentToolNames(skill, session.home, ctx.env);
  const shadows = session.catalog.shadowed.filter((h) =>
    h.canonical === skill.canonical && h.by.dir === skill.dir
  );
  const info = describeSkill(skill, session.active.has(skill.canonical), tools, shadows);
  if (options.json) {
    writeJson(ctx, info);
    return 0;
  }
  const out: string[] = [];
  const field = (label: string, value: string | null | undefined) => {
    if (value !== null && value !== undefined && value !== "") {
      out.push(`${label.padEnd(13)} ${value}`);
    }
  };
  field("Name", info.name);
  field("Description", info.description);
  field("Version", info.version);
  field("Author", info.author);
  field("License", info.license);
  field("Repository", info.repository);
  field("Compatibility", info.compatibility);
  field(
    "Source",
    info.source_url
      ? `${info.source} ${info.source_url}${info.source_subpath ? ` (${info.source_subpath})` : ""}`
      : info.source,
  );
  // An OCI skill is pinned to a manifest digest, a git skill to a commit.
  field(skill.origin === "oci" ? "Manifest" : "Commit", info.commit_sha);
  field("Signed by", info.signed_by);
  field(
    "Tracking",
    info.tag
      ? `tag ${info.tag}`
      : info.branch
      ? `branch ${info.branch}`
      : info.ref
      ? `ref ${info.ref}`
      : null,
  );
  field(
    "Scope",
    info.project
      ? `project (${info.project.path} in ${info.project.root}${
        info.project.locked ? ", recorded in skills-lock.json" : ""
      })`
      : info.scope,
  );
  for (const h of info.shadows) field("Shadows", `the ${h.scope} skill in ${h.path}`);
  field("Trusted", info.trusted ? "yes" : "no");
  field("Active", info.active ? "yes" : "no (export AGENT_SKILLS=" + info.canonical + ")");
  field("Path", info.path);
  field("Env allowed", info.permissions.env.join(", "));
  field("Network", describeNetworkList(info.permissions.network));
  field("Writes", SCRIPT_WRITES_SUMMARY);
  field("Allowed tools", info.allowed_tools?.join(" "));
  out.push("", `Scripts (${info.scripts.length}):`);
  for (const s of info.scripts) out.push(`  ${s.name.padEnd(20)} ${s.path}`);
  out.push("", `Toolsets (${info.toolsets.length}):`);
  for (const t of info.toolsets) out.push(`  ${t}`);
  if (info.references.length > 0) {
    out.push(
      "",
      "References:",
      ...info.references.map((r) => `  ${r}`),
    );
  }
  if (info.assets.length > 0) out.push("", "Assets:", ...info.assets.map((a) => `  ${a}`));
  if (info.files.length > 0) out.push("", "Other files:", ...info.files.map((f) => `  ${f}`));
  out.push("", "Agent tools:", ...info.tools.map((t) => `  ${t}`));
  if (info.warnings.length > 0) out.push("", "Warnings:", ...info.warnings.map((w) => `  ${w}`));
  // Nearly every line holds text from the skill: written inert (core/terminal_text.ts).
  ctx.stdout.write(out.map((line) => inert(line)).join("\n") + "\n");
  return 0;
}

/** Who signed it, as the registry or lockfile records it (runtime/signing), else null. */
function signer(signed: unknown): string | null {
  const by = (signed as { by?: unknown } | undefined)?.by;
  return typeof by === "string" ? by : null;
}
