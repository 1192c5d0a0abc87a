/** `skills untrust <name>`: withdraw approval; the skill stays installed but will not run. */

import { SkillError } from "../../core/errors.ts";
import type { Context } from "../../core/io.ts";
import { warn } from "../../core/io.ts";
import { skillsHome } from "../../runtime/store/home.ts";
import { beginChange } from "../../runtime/lifecycle/change.ts";
import { trustTarget } from "../../runtime/lifecycle/trust.ts";
import { defineCommand, type OptionsOf, requireOne } from "../args.ts";
import { untrustSpec } from "../specs/untrust.ts";
import { writeJson } from "../ui/render.ts";
import { projectSkillNamed, withdrawProjectTrust } from "../../runtime/project/approvals.ts";
import { renderProjectUntrust } from "../ui/trust_ui.ts";

export const { help, parse } = defineCommand(
  untrustSpec,
  ({ positionals, common }) => {
    const flags = common;
    if (flags.help) return { ...flags, name: "" };
    return { ...flags, name: requireOne("untrust", positionals, "skill name") };
  },
);

type UntrustOptions = OptionsOf<typeof parse>;

export async function run(options: UntrustOptions, ctx: Context): Promise<number> {
  const home = skillsHome(ctx.env, ctx.cwd);
  await using change = await beginChange({ kind: "user", home }, {
    env: ctx.env,
    signal: ctx.signal,
  });
  for (const note of change.recovered) warn(ctx, note);
  const projectSkill = await projectSkillNamed(home, ctx.cwd, ctx.env, options.name);
  if (projectSkill !== undefined) {
    const was = await withdrawProjectTrust(home, projectSkill, ctx.env);
    return renderProjectUntrust(ctx, projectSkill.canonical, was, options.json);
  }
  const target = await trustTarget(home, options.name);
  if (target.kind === "bundled") {
    throw new SkillError(
      "permission_denied",
      `Cannot untrust skill '${target.canonical}': it is bundled and always trusted`,
      { hint: "Deactivate it with AGENT_SKILLS instead" },
    );
  }
  const name = target.entry.name_canonical;
  const wasTrusted = target.entry.trusted && target.entry.trusted_digest !== null;
  if (wasTrusted) await change.untrust(target.entry);
  if (options.json) writeJson(ctx, { name, trusted: false, changed: wasTrusted });
  else ctx.stdout.write(wasTrusted ? `Untrusted '${name}'\n` : `'${name}' was not trusted\n`);
  return 0;
}
