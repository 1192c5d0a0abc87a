/** `skills lint` (declaration: see ../spec.ts). */

import { type CommandSpec, HELP_FLAG, jsonFlag, verboseFlag } from "../spec.ts";

export const lintSpec = {
  name: "lint",
  summary: "Check a skill's style for its author",
  usage: ["lint <dir>... [--run-scripts [--yes]] [--timeout S] [--json]"],
  description: `Checks for skill authors, beyond what \`skills validate\` requires:

  description   says what the skill does and when to use it, in the third
                person, without vague words ('helps', 'various', 'etc.')
  body          at most 500 lines and 5,000 tokens (it is loaded whole)
  files         every file the body mentions exists; every reference, asset
                and script is mentioned somewhere
  scripts       with --run-scripts: each answers --help, and prints one JSON
                document with --json (run through the same runner and sandbox
                as \`skills run\`)
  name          equals the folder's name
  portability   what \`validate\` warns about and \`validate --strict\` refuses

A directory without SKILL.md that holds skill directories lints each of them.
Lint runs no script unless you pass --run-scripts: a directory is not trusted.
Scripts run in the OS sandbox with no network (the skill's declared hosts are
not granted); without a sandbox (policy mode) lint asks first, and refuses when
it cannot ask unless --yes is given.
\`skills init\` output lints clean.`,
  flags: {
    "run-scripts": {
      type: "boolean",
      description: "Run each script with --help and --json (only on code you reviewed)",
    },
    "no-scripts": { type: "boolean", description: "Run no script (the default)" },
    yes: {
      type: "boolean",
      description: "With --run-scripts and no OS sandbox: run them as you without asking",
    },
    timeout: {
      type: "string",
      value: "S",
      description: "Seconds per script run (default 10)",
    },
    json: jsonFlag('{"clean": bool, "skills": [{path, name, findings: [...]}]}'),
    verbose: verboseFlag(),
    help: HELP_FLAG,
  },
  positionals: [{ name: "dir", required: true, variadic: true, complete: "path" }],
  sections: [
    {
      title: "Exit codes",
      text: "0 no errors (warnings allowed), 1 an error (e.g. a missing file), 2 usage error.",
    },
  ],
} as const satisfies CommandSpec;
