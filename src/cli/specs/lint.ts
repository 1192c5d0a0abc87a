/** `skills lint` (declaration: see ../spec.ts). */

import { UsageError } from "../../core/errors.ts";
import { type CommandSpec, HELP_FLAG, jsonFlag, verboseFlag } from "../spec.ts";
import { number } from "../args.ts";

export const lintSpec = {
  name: "lint",
  order: 50,
  summary: "Check a skill's style for its author",
  guide: "reviewing.md",
  usage: ["lint <dir>... [--run-scripts | --no-scripts] [--timeout S] [--json]", "lint --guide"],
  description: `Checks for skill authors, beyond what \`skills validate\` requires:

  description   says what the skill does and when to use it, in the third
                person, without vague words ('helps', 'various', 'etc.')
  body          at most 500 lines and 5,000 tokens (it is loaded whole)
  files         every file the body links to or tells the agent to open or run
                exists (examples and code blocks aside; one found beside the
                skill, as in its plugin, is a warning); every reference, asset
                and script is mentioned somewhere
  scripts       each answers --help, and prints one JSON document with --json
                (run through the same runner and sandbox as \`skills run\`);
                helper modules (imported by other scripts, or only defining
                things) are not commands; a missing module is named as such
  name          equals the folder's name
  portability   what \`validate\` warns about and \`validate --strict\` refuses

A directory without SKILL.md that holds skill directories lints each of them.
Scripts run only for a skill you trusted (an installed or project skill) whose
files have not changed since, or with --run-scripts, always in the OS sandbox with no network but what you grant
(SKILLS_ALLOW_NET; the skill's own permissions.network is ignored under review).
Without a sandbox on this machine lint asks first, and runs none when it cannot ask.
\`skills init\` output lints clean.`,
  flags: {
    "run-scripts": {
      type: "boolean",
      description: "Run the scripts of a skill you have not trusted (your own, in the works)",
    },
    "no-scripts": {
      type: "boolean",
      description: "Do not run the scripts, even of a trusted skill",
    },
    timeout: {
      type: "string",
      parse: number({
        above: 0,
        max: 600,
        invalid: (text) => new UsageError(`Invalid --timeout '${text}' (seconds, 0 < S ≤ 600)`),
      }),
      value: "S",
      description: "Seconds per script run (default 10)",
    },
    guide: {
      type: "boolean",
      description: "Print the guide for skill authors (Markdown) that explains every rule",
    },
    json: jsonFlag('{"clean": bool, "skills": [{path, name, findings: [...]}]}'),
    verbose: verboseFlag(),
    help: HELP_FLAG,
  },
  positionals: [{ name: "dir", variadic: true, complete: "path" }],
  sections: [
    {
      title: "Guide",
      text: `\`skills lint --guide\` prints the guide for skill authors, which explains every
rule (docs/writing-skills.md in the skills repository); each finding names its
section (a "see" line under it, "guide" in --json).`,
    },
    {
      title: "Exit codes",
      text: "0 no errors (warnings allowed), 1 an error (e.g. a missing file), 2 usage error.",
    },
  ],
} as const satisfies CommandSpec;
