/**
 * `skills completions bash|zsh|fish`: shell completion scripts generated from the command
 * specs (the same data as the parsers and the help, so they never drift), completing
 * installed skill names and a skill's scripts at completion time through `--list-skills`
 * and `--list-scripts <skill>`.
 */

import { UsageError } from "../../core/errors.ts";
import { findSkill } from "../../runtime/catalog/catalog.ts";
import type { Context } from "../../core/io.ts";
import { defineCommand, type OptionsOf } from "../args.ts";
import { completionsSpec } from "../specs/completions.ts";
import { SPECS } from "../specs/all.ts";
import { completionCommands, renderBash, renderZsh } from "../completions_render.ts";
import { renderFish } from "../completions_fish.ts";
import { openSession } from "../../runtime/catalog/catalog_session.ts";

type Shell = "bash" | "zsh" | "fish";

export const { help, parse } = defineCommand(
  completionsSpec,
  ({ values, positionals, common }) => {
    const flags = common;
    const listSkills = values["list-skills"] === true;
    const listScripts = values["list-scripts"];
    const base = { ...flags, shell: undefined as Shell | undefined, listSkills, listScripts };
    if (flags.help || listSkills || listScripts !== undefined) return base;
    if (positionals.length !== 1) {
      throw new UsageError(
        positionals.length === 0
          ? "Missing shell"
          : `Expected one shell, got ${positionals.length}`,
        "Run `skills completions bash`, `skills completions zsh` or `skills completions fish`",
      );
    }
    const shell = positionals[0]!;
    if (shell !== "bash" && shell !== "zsh" && shell !== "fish") {
      throw new UsageError(
        `Unsupported shell '${shell}'`,
        "Supported shells: bash, zsh, fish",
      );
    }
    return { ...base, shell: shell as Shell };
  },
);

type CompletionsOptions = OptionsOf<typeof parse>;

export async function run(options: CompletionsOptions, ctx: Context): Promise<number> {
  if (options.listSkills || options.listScripts !== undefined) {
    const { catalog } = await openSession(ctx);
    if (options.listScripts !== undefined) {
      const skill = findSkill(catalog, options.listScripts);
      for (const script of skill.scripts) ctx.stdout.write(`${script.name}\n`);
    } else {
      for (const skill of catalog.skills) ctx.stdout.write(`${skill.canonical}\n`);
    }
    return 0;
  }
  const render = { bash: renderBash, zsh: renderZsh, fish: renderFish }[options.shell!];
  ctx.stdout.write(render(completionCommands(SPECS)));
  return 0;
}
