/** `skills audit` (declaration: see ../spec.ts). */

import { type CommandSpec, HELP_FLAG, jsonFlag, verboseFlag } from "../spec.ts";

export const auditSpec = {
  name: "audit",
  order: 40,
  summary: "Scan a skill for risky content before trusting it",
  guide: "reviewing.md",
  usage: ["audit <target> [--format text|json|sarif] [--fail-on LEVEL] [--json]"],
  description: `A static scan of SKILL.md and every file a skill ships, nothing run. Findings are
grouped by severity (critical, high, medium, info), each with its file, line, rule,
a short explanation and the matched text (invisible and control characters shown
escaped, hidden tag text decoded).

<target> is a skill directory (or a folder of skill directories, like
skills/core), the name of an installed or bundled skill, or a source as
\`skills add\` takes it (owner/repo, a git URL, ...): a source is fetched into
staging, scanned and removed; nothing is installed.

\`skills add\` and \`skills update\` run the same audit and show it before asking;
a critical finding refuses the install unless --allow-risky.`,
  flags: {
    format: {
      type: "string",
      value: "F",
      description: "text (default), json, or sarif (SARIF 2.1.0, for code scanning)",
    },
    "fail-on": {
      type: "string",
      value: "LEVEL",
      description:
        "Exit 1 at this severity or above:\ncritical, high (default), medium, info, none",
    },
    json: jsonFlag("Same as --format json"),
    verbose: verboseFlag(),
    help: HELP_FLAG,
  },
  positionals: [{ name: "target", required: true, complete: "path" }],
  sections: [
    {
      title: "Rules",
      text: `
  critical  downloads and runs code, decodes and runs code, invisible tag
            characters, instructions to send secrets away, a script that reads
            credentials and talks to the network
  high      prompt injection, hiding things from the user, instructions loaded
            from the network or hidden in HTML comments, bidi and invisible
            characters, !\`command\` blocks, hooks, reads of ~/.ssh ~/.aws
            ~/.config/gcloud .env keychains and browser profiles, persistence,
            destructive commands, request-bin endpoints, env permissions
            broader than the skill's name, compiled code
  medium    unrestricted Bash in allowed-tools, raw IP endpoints, binary and
            minified files, files too large to scan whole
  info      every network endpoint, so you see where data can go`,
    },
    {
      title: "Examples",
      text: `
  skills audit ./my-skill
  skills audit owner/repo --format sarif > skills.sarif
  skills audit kalshi-markets --json`,
    },
    {
      title: "Exit codes",
      text: `0 no finding at the --fail-on level, 1 findings at that level or a failure,
2 usage error, 124 git timed out, 130 interrupted.`,
    },
  ],
} as const satisfies CommandSpec;
