/** `skills trust <name>`: approve an installed skill's current files (bound to their digest). */

import { describeNetPolicy, NO_NETWORK } from "../../core/policy/net_grants.ts";
import { SCRIPT_WRITES_SUMMARY } from "../../core/policy/workspace.ts";
import { declined } from "../../core/errors.ts";
import type { RegistryEntry } from "../../core/records/registry_model.ts";
import type { Context } from "../../core/io.ts";
import { warn } from "../../core/io.ts";
import { skillsHome } from "../../runtime/store/home.ts";
import { beginChange } from "../../runtime/lifecycle/change.ts";
import { currentDigest, inspectForTrust, trustTarget } from "../../runtime/lifecycle/trust.ts";
import { describeTracking } from "../../runtime/lifecycle/update_installed.ts";
import { defineCommand, type OptionsOf, requireOne } from "../args.ts";
import { trustSpec } from "../specs/trust.ts";
import { confirmAction, fields, listOrNone } from "../ui/lifecycle_ui.ts";
import { writeJson } from "../ui/render.ts";
import { projectSkillNamed, trustProjectSkill } from "../../runtime/project/approvals.ts";
import { approveOnTerminal, renderProjectTrust } from "../ui/trust_ui.ts";

export const { help, parse } = defineCommand(
  trustSpec,
  ({ values, positionals, common }) => {
    const flags = common;
    if (flags.help) return { ...flags, name: "", yes: false };
    return {
      ...flags,
      name: requireOne("trust", positionals, "skill name"),
      yes: values.yes === true,
    };
  },
);

type TrustOptions = OptionsOf<typeof parse>;

function state(entry: RegistryEntry, digest: string): string {
  if (!entry.trusted || entry.trusted_digest === null) return "not trusted";
  return entry.trusted_digest === digest
    ? "trusted (files match)"
    : "trusted, but the files changed since";
}

export async function run(options: TrustOptions, ctx: Context): Promise<number> {
  const home = skillsHome(ctx.env, ctx.cwd);
  await using change = await beginChange({ kind: "user", home }, {
    env: ctx.env,
    signal: ctx.signal,
  });
  for (const note of change.recovered) warn(ctx, note);
  // A project skill of that name wins over an installed one, as everywhere (issue 17).
  const projectSkill = await projectSkillNamed(home, ctx.cwd, ctx.env, options.name);
  if (projectSkill !== undefined) {
    const review = await trustProjectSkill(home, projectSkill, approveOnTerminal(ctx, options));
    return renderProjectTrust(ctx, review, options.json);
  }
  const target = await trustTarget(home, options.name);
  if (target.kind === "bundled") {
    if (options.json) writeJson(ctx, { name: target.canonical, trusted: true, bundled: true });
    else ctx.stdout.write(`'${target.canonical}' is bundled and always trusted\n`);
    return 0;
  }
  const entry = target.entry;
  const name = entry.name_canonical;
  const inspected = await inspectForTrust(name, entry.installed_path);
  const digest = await currentDigest(entry);
  const already = entry.trusted && entry.trusted_digest === digest;
  const result = (trusted: RegistryEntry) => ({
    name,
    trusted: trusted.trusted,
    trusted_digest: trusted.trusted_digest,
    changed: !already,
  });
  if (already) {
    if (options.json) writeJson(ctx, result(entry));
    else ctx.stdout.write(`'${name}' is already trusted (${digest})\n`);
    return 0;
  }
  const m = inspected.manifest;
  ctx.stderr.write(
    `\nSkill '${name}'\n` + fields([
      ["Description", m?.description],
      ["Source", `${entry.source.url}${entry.source.subpath ? ` (${entry.source.subpath})` : ""}`],
      ["Commit", entry.commit_sha],
      ["Tracking", describeTracking(entry)],
      ["Scripts", listOrNone(inspected.record?.scripts.map((s) => s.name) ?? [])],
      ["Toolsets", listOrNone(m?.toolsets ?? [])],
      ["Env allowed", listOrNone(m?.envPatterns ?? [])],
      ["Network", describeNetPolicy(m?.network ?? NO_NETWORK)],
      [
        "Services",
        m?.services?.length
          ? `${m.services.join(", ")} (may keep running: skills run --background)`
          : "none",
      ],
      ["Writes", SCRIPT_WRITES_SUMMARY],
      ["State", state(entry, digest)],
      ["Digest", digest],
    ]),
  );
  const ok = await confirmAction(ctx, `Trust skill '${name}' with its current files?`, {
    yes: options.yes,
    action: `Cannot trust skill '${name}'`,
  });
  if (!ok) throw declined(`Skill '${name}' was not trusted`);
  const next = await change.trust(entry, digest);
  if (options.json) writeJson(ctx, result(next));
  else ctx.stdout.write(`Trusted '${name}' (${digest})\n`);
  return 0;
}
