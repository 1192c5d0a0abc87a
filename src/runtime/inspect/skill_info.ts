/**
 * `skills info <name>`'s one workflow: the skill found in the catalog, what a model would
 * see of it (its toolsets started to list their tools), the skills it shadows, and
 * everything its record, lock entry and manifest say — the `--json` report, which the text
 * report is read from.
 */

import { skillVersion } from "../../core/manifest/semver.ts";
import type { Context } from "../../core/io.ts";
import { networkList } from "../../core/policy/net_grants.ts";
import { findSkill, type LoadedSkill, type ShadowedSkill } from "../catalog/catalog.ts";
import { openSession } from "../catalog/catalog_session.ts";
import { agentToolNames } from "./toolset_probe.ts";
import { describeSignature } from "../../core/governance/signature_text.ts";

/** Who signed it, as the registry or lockfile records it (runtime/signing), else null. */
function signer(signed: unknown): string | null {
  const by = (signed as { by?: unknown } | undefined)?.by;
  return typeof by === "string" && by !== "" ? by : null;
}

function describeSkill(
  skill: LoadedSkill,
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
    /** Claude Code's `when_to_use`: what the model reads after the description. */
    when_to_use: m.whenToUse ?? null,
    version: skillVersion(m) ?? null,
    author: m.author ?? null,
    license: m.license ?? null,
    repository: m.repository ?? null,
    compatibility: m.compatibility ?? null,
    allowed_tools: m.allowedTools ?? null,
    metadata: m.metadata ?? null,
    min_agent_base_version: m.minAgentVersion ?? null,
    max_agent_base_version: m.maxAgentVersion ?? null,
    permissions: {
      env: m.envPatterns,
      network: networkList(m.network),
      // The scripts it may keep running (`skills run --background`), beside its network.
      services: [...(m.services ?? [])],
    },
    /** What its instructions call (`requires: {mcp: [...]}`): your agent's to provide. */
    mcp_servers: [...(m.mcpServers ?? [])],
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
    signature: describeSignature(skill.entry?.signed ?? locked?.signed),
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

/** Everything `skills info` says about one skill. */
type SkillInfo = ReturnType<typeof describeSkill>;

/** The named skill's info (`not_found` when no skill of that name loaded). */
export async function skillInfo(ctx: Context, name: string): Promise<SkillInfo> {
  const session = await openSession(ctx);
  const skill = findSkill(session.catalog, name);
  const tools = await agentToolNames(skill, session.home, ctx.env);
  const shadows = session.catalog.shadowed.filter((h) =>
    h.canonical === skill.canonical && h.by.dir === skill.dir
  );
  return describeSkill(skill, session.active.has(skill.canonical), tools, shadows);
}
