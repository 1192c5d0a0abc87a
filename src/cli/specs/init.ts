/** `skills init` (declaration: see ../spec.ts). */

import { type CommandSpec, HELP_FLAG, jsonFlag } from "../spec.ts";

export const initSpec = {
  name: "init",
  order: 230,
  summary: "Scaffold a new skill",
  guide: "writing-skills.md",
  usage: ["init <name> [--dir D] [--with-toolset] [--json]"],
  description: `Scaffold a new skill in <D>/<name> (default: the current directory):

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
never overwritten.`,
  flags: {
    dir: {
      type: "string",
      value: "D",
      description: "Parent directory for the new skill (default: .)",
      complete: "directory",
    },
    "with-toolset": {
      type: "boolean",
      description: "Add a typed Python toolset class and its unittest",
    },
    json: jsonFlag('Print {"name", "path", "files", "script", "toolset"} on stdout'),
    help: HELP_FLAG,
  },
  positionals: [{ name: "name", required: true, complete: "none" }],
} as const satisfies CommandSpec;
