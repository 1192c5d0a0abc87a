/** `skills init <name> [--dir D] [--with-toolset]`: scaffold a new, valid skill. */

import { resolve } from "../../runtime/os/paths.ts";
import { UsageError } from "../../core/errors.ts";
import type { Context } from "../../core/io.ts";
import { planScaffold, scaffoldName, writeScaffold } from "../../runtime/authoring/scaffold.ts";
import { defineCommand, type OptionsOf, requireOne } from "../args.ts";
import { initSpec } from "../specs/init.ts";
import { writeJson } from "../ui/render.ts";

export const { help, parse } = defineCommand(
  initSpec,
  ({ values, positionals, common }) => {
    const flags = common;
    const options = { ...flags, dir: values.dir, withToolset: values["with-toolset"] === true };
    if (flags.help) return { ...options, name: "" };
    if (values.dir === "") {
      throw new UsageError("--dir must not be empty", "Run `skills init --help` for usage");
    }
    return { ...options, name: requireOne("init", positionals, "skill name") };
  },
);

type InitOptions = OptionsOf<typeof parse>;

export async function run(options: InitOptions, ctx: Context): Promise<number> {
  const name = scaffoldName(options.name);
  const plan = planScaffold(name, { withToolset: options.withToolset });
  const parent = resolve(ctx.cwd, options.dir ?? ".");
  const path = await writeScaffold(parent, plan);
  const files = plan.files.map((f) => f.path);
  if (options.json) {
    writeJson(ctx, {
      name,
      path,
      files,
      script: plan.script.slice(0, -3),
      toolset: plan.toolset ?? null,
    });
    return 0;
  }
  ctx.stdout.write(`Created skill "${name}" in ${path}\n`);
  for (const file of files) ctx.stdout.write(`  ${file}\n`);
  if (name !== options.name) {
    ctx.stderr.write(`note: the name "${options.name}" was canonicalised to "${name}"\n`);
  }
  const stem = plan.script.slice(0, -3);
  ctx.stderr.write(
    `\nNext steps:\n` +
      `  skills validate --strict ${path}\n` +
      `  skills lint --run-scripts ${path}\n` +
      `  skills audit ${path}\n` +
      `  skills add ${path} --yes\n` +
      `  skills run ${name} ${stem} --name Ada --json\n` +
      (plan.toolset === undefined
        ? ""
        : `  (cd ${path} && python3 -m unittest discover -s tests)\n`) +
      `The guide for skill authors: skills lint --guide (lint findings name its sections)\n`,
  );
  return 0;
}
