/** `skills check` (declaration: see ../spec.ts). */

import { type CommandSpec, HELP_FLAG, jsonFlag } from "../spec.ts";

export const checkSpec = {
  name: "check",
  order: 60,
  summary: "Diagnose skills, tools and $SKILLS_HOME",
  guide: "reviewing.md",
  usage: ["check [<check>...] [--repair] [--json]"],
  description: `The doctor: one line per skill (✓ loaded, ○ inactive, ✗ failed to load, with the
reason), a hint when nothing is active, whether python3, uv, git and the runners
of every script language are available, and whether $SKILLS_HOME is consistent
(every registry entry has its files, no orphaned skill directories, no leftovers
from interrupted commands).

Name checks to run only those (and, with --repair, only their repairs): skills,
tools, sandbox, home, warnings, project. \`skills check home --json\` answers
whether $SKILLS_HOME is consistent without starting any tool.`,
  flags: {
    repair: {
      type: "boolean",
      description: `Drop registry entries without files, move orphaned directories
to $SKILLS_HOME/.trash, and clear leftovers`,
    },
    json: jsonFlag("One JSON document"),
    help: HELP_FLAG,
  },
  positionals: [{ name: "check", variadic: true, complete: "none" }],
  sections: [
    {
      title: "Exit codes",
      text: "0 healthy, 1 a skill failed to load or $SKILLS_HOME is inconsistent.",
    },
  ],
} as const satisfies CommandSpec;
