/** `skills info <name>`: manifest, scripts, toolsets, resources, provenance, tool names. */

import { describeNetworkList } from "../../core/policy/net_grants.ts";
import { SCRIPT_WRITES_SUMMARY } from "../../core/policy/workspace_rules.ts";
import { inert, oneLine } from "../../core/terminal_text.ts";
import type { Context } from "../../core/io.ts";
import { skillInfo } from "../../runtime/inspect/skill_info.ts";
import { defineCommand, type OptionsOf, requireOne } from "../args.ts";
import { infoSpec } from "../specs/info.ts";
import { writeJson } from "../ui/render.ts";
import { mcpServersLine } from "../ui/lifecycle_ui.ts";

export const { help, parse } = defineCommand(
  infoSpec,
  ({ positionals, common }) => {
    const flags = common;
    if (flags.help) return { ...flags, name: "" };
    return { ...flags, name: requireOne("info", positionals, "skill name") };
  },
);

type InfoOptions = OptionsOf<typeof parse>;

/**
 * What a skill is pinned to: an OCI skill to a manifest digest, a git skill to a commit, a
 * website's skill to the digest of what was downloaded, an npm package's skill to its version
 * and the tarball's integrity (`1.2.0@sha512-…`).
 */
function revisionField(source: string): string {
  if (source === "oci") return "Manifest";
  if (source === "web") return "Digest";
  return source === "npm" ? "Version" : "Commit";
}

export async function run(options: InfoOptions, ctx: Context): Promise<number> {
  const info = await skillInfo(ctx, options.name);
  if (options.json) {
    writeJson(ctx, info);
    return 0;
  }
  const out: string[] = [];
  const field = (label: string, value: string | null | undefined) => {
    // One line a field: a YAML block scalar's line breaks (`compatibility: |`) read as spaces,
    // not as the `\n` the terminal-safe output would print for each.
    const line = oneLine(value ?? "");
    if (line !== "") out.push(`${label.padEnd(13)} ${line}`);
  };
  field("Name", info.name);
  field("Description", info.description);
  field("When to use", info.when_to_use);
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
  field(revisionField(info.source), info.commit_sha);
  field("Signed by", info.signed_by);
  field("Signature", info.signature === null ? null : inert(info.signature));
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
  field("Services", info.permissions.services.join(", "));
  field("MCP servers", info.mcp_servers.length ? mcpServersLine(info.mcp_servers) : null);
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
