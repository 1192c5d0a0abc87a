/** `skills init <name> [--dir D] [--with-toolset]`: scaffold a new, valid skill. */

import { resolve } from "../../runtime/os/paths.ts";
import { UsageError } from "../../core/errors.ts";
import type { Context } from "../../core/io.ts";
import { planScaffold, scaffoldName, writeScaffold } from "../../runtime/lifecycle/scaffold.ts";
import { commonFlags, parseCommand, requireOne } from "../args.ts";
import type { ParsedCommon } from "../command.ts";
import { writeJson } from "../render.ts";

export const help = `Usage: skills init <name> [--dir D] [--with-toolset] [--json]

Scaffold a new skill in <D>/<name> (default: the current directory):

  <name>/SKILL.md               front matter (name, description, compatibility)
                                and usage instructions for the agent
  <name>/scripts/<name>.py      a standard-library PEP 723 script with --help
                                and --json ('-' becomes '_' in file names)
  <name>/.gitignore             __pycache__/ and *.pyc

With --with-toolset, also:

  <name>/toolsets/<name>.py     a typed toolset class (<Name>Tools), one tool
  <name>/tests/test_<name>.py   its unittest (python3 -m unittest discover -s tests)

The toolset is declared as metadata.toolsets ("toolsets.<name>:<Name>Tools")
rather than the top-level 'toolsets:' list: metadata is the Agent Skills spec's
place for client extensions, so the scaffold stays valid under --strict, and
skills reads both spellings.

The result passes \`skills validate --strict\`; install it and run its script:
  skills add ./<name> --yes
  skills run <name> <name> --json

The name must be lower-case letters and digits joined by single hyphens
(My_Skill is accepted and becomes my-skill). An existing <name> directory is
never overwritten.

Options:
  --dir D          Parent directory for the new skill (default: .)
  --with-toolset   Add a typed Python toolset class and its unittest
  --json           Print {"name", "path", "files", "script", "toolset"} on stdout
  -h, --help       Show this help
`;

export interface InitOptions extends ParsedCommon {
  name: string;
  dir: string | undefined;
  withToolset: boolean;
}

export function parse(argv: readonly string[]): InitOptions {
  const { values, positionals } = parseCommand("init", argv, {
    dir: { type: "string" },
    "with-toolset": { type: "boolean" },
  });
  const flags = commonFlags(values);
  const options = { ...flags, dir: values.dir, withToolset: values["with-toolset"] === true };
  if (flags.help) return { ...options, name: "" };
  if (values.dir === "") {
    throw new UsageError("--dir must not be empty", "Run `skills init --help` for usage");
  }
  return { ...options, name: requireOne("init", positionals, "skill name") };
}

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
      `  skills add ${path} --yes\n` +
      `  skills run ${name} ${stem} --name Ada --json\n` +
      (plan.toolset === undefined
        ? ""
        : `  (cd ${path} && python3 -m unittest discover -s tests)\n`),
  );
  return 0;
}
