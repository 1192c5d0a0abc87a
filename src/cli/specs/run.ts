/** `skills run` (declaration: see ../spec.ts). */

import { UsageError } from "../../core/errors.ts";
import { formatNetGrant, parseNetGrant } from "../../core/policy/grant_syntax.ts";
import { type CommandSpec, HELP_FLAG, verboseFlag } from "../spec.ts";
import { keyValue, number } from "../args.ts";

const HINT = "Run `skills run --help` for usage";

export const runSpec = {
  name: "run",
  order: 80,
  summary: "Run a skill script in the sandbox",
  guide: "running-scripts.md",
  usage: ["run [options] <skill> <script> [script args...]"],
  description: `Run a skill script in the sandbox. <script> is its name (status, office/unpack),
its path in scripts/ (scripts/office/unpack.py), or the path from the skill root of any
file in a script language (resources/deploy.sh). Python: \`uv run --script\` when uv is
installed (with the skill's requirements.txt for scripts without a PEP 723 block), else
python3 for scripts whose packages need no installing, and for --help (a script's usage often
comes before its imports). .sh: bash; .js/.mjs/.cjs: node (or deno); .ts: deno; no
extension: what its #! line names.
The script sees a cleared environment (PATH, HOME, LANG, LC_*, TERM, TMPDIR, uv's
settings, your TLS trust such as SSL_CERT_FILE, ...) plus the variables its skill
allowlists in permissions.env, the skill root on PYTHONPATH, SKILLS_SKILL_DIR (the
skill's verified, read-only folder) and SKILLS_WORK_DIR, a fresh folder of its own. Its
working directory is this directory, the workspace: relative paths in its arguments mean
what you meant. It writes a copy-on-write layer, never this folder: when it ends, its
diff is applied here as you, except guarded paths (any .git, hooks, .envrc and shell
start-up files, .claude/, .vscode/, .cursor/, .mcp.json, package-manager configuration,
CI workflows, skills-lock.json), which are held back in $SKILLS_HOME/.cache/quarantine/;
set-uid bits and device files are dropped. A run stopped by a timeout or Ctrl-C changes
nothing. Secret files (.env*, .envrc, .npmrc, .netrc, .pypirc, ...) cannot be read. Your
home, / or a folder holding $SKILLS_HOME as the workspace stay read-only.
Installed skills must be trusted (\`skills trust <skill>\`); bundled skills always are.

On Linux the script runs inside bubblewrap: a read-only filesystem without your home,
$SKILLS_HOME or other skills; a fresh writable work folder (HOME, TMPDIR and
SKILLS_WORK_DIR) and a cache folder of the skill's own (XDG_CACHE_HOME); this
directory as SKILLS_CALLER_DIR, an overlay as above (the kernel's as root, fuse-overlayfs
otherwise; read-only where neither can be had); no network but the hosts its manifest
declares (permissions.network) and those you grant; limits on processes, memory, CPU
time and file size.

Everything after <script> is passed to the script. Among those arguments:
  --json         JSON mode: stdout carries exactly one JSON document, the script's
                 output on success or {"success": false, "error", "message"} on failure.
                 Only a bare --json (last, or before another option): --json VALUE is
                 the script's own option, passed on without JSON mode
  --help         Show the script's own help
  --             Not passed on; nothing after it is read (all of it is the script's)
A script at the skill root runs by its file name, ./NAME.sh or its name alone.
stdin is passed to the script when it is not a terminal (up to 16 MiB; past that the
script's stdin ends and a warning says so); from a terminal, the script's stdin is empty.`,
  optionsTitle: "Options (before <skill>)",
  flags: {
    timeout: {
      type: "string",
      value: "S",
      parse: number({
        above: 0,
        max: 86400,
        invalid: (text) =>
          new UsageError(
            `Invalid --timeout '${text}': expected a number of seconds above 0 and at most 86400`,
            HINT,
          ),
      }),
      description: `Stop the script (and everything it started) after S seconds
(default: SCRIPT_TIMEOUT, else the skill's limits.timeout, else 60)`,
    },
    env: {
      type: "string",
      multiple: true,
      value: "NAME",
      parse: keyValue(
        /^[A-Za-z_][A-Za-z0-9_]*$/,
        (text) => new UsageError(`Invalid --env '${text}': expected NAME or NAME=VALUE`, HINT),
      ),
      description: `Forward NAME; NAME=VALUE sets it. Only names the skill allowlists
(permissions.env) are accepted, else permission_denied`,
    },
    "allow-net": {
      type: "string",
      multiple: true,
      value: "HOST[:PORT]",
      // Kept in its canonical spelling (`host:port`, IPv6 in brackets).
      parse: (text: string) => {
        const parsed = parseNetGrant(text);
        if ("error" in parsed) {
          throw new UsageError(
            `Invalid --allow-net: ${parsed.error}`,
            "Expected HOST or HOST:PORT",
          );
        }
        return formatNetGrant(parsed);
      },
      description: `Let the script reach HOST (on PORT only, if given) for this run,
besides the hosts its manifest declares (also SKILLS_ALLOW_NET=host,host:port)`,
    },
    "read-only": {
      type: "boolean",
      description: `Keep the workspace read-only for this run (also SKILLS_READ_ONLY=1)`,
    },
    review: {
      type: "boolean",
      description: `Show what the script changed in the workspace and ask before applying it
(declined: nothing is written; the changes are discarded)`,
    },
    write: {
      type: "string",
      multiple: true,
      value: "PATH",
      description: `Let the script write folder PATH too (its guarded paths stay read-only;
never /, a system folder, your home or $SKILLS_HOME)`,
    },
    background: {
      type: "boolean",
      description: `Start the script as a service that keeps running in its sandbox (see
"Services" below); returns once it listens, printing its URLs`,
    },
    "idle-timeout": {
      type: "string",
      value: "S",
      parse: number({
        above: 0,
        max: 7 * 86400,
        invalid: (text) =>
          new UsageError(`Invalid --idle-timeout '${text}': expected seconds above 0`, HINT),
      }),
      description: `With --background: end the service after S seconds without a connection
or output (default SKILLS_SERVICE_IDLE, else 14400: 4 hours)`,
    },
    "max-lifetime": {
      type: "string",
      value: "S",
      parse: number({
        above: 0,
        max: 7 * 86400,
        invalid: (text) =>
          new UsageError(`Invalid --max-lifetime '${text}': expected seconds above 0`, HINT),
      }),
      description: `With --background: end the service after S seconds whatever it does
(default SKILLS_SERVICE_LIFETIME, else 86400: a day)`,
    },
    verbose: verboseFlag("Debug logs on stderr (launcher, argv, duration, exit code, bytes)"),
    help: HELP_FLAG,
  },
  positionals: [
    { name: "skill", required: true, complete: "skill" },
    { name: "script", required: true, complete: "script" },
    // Everything from here on, options included, belongs to the script.
    { name: "script args", variadic: true, raw: true, complete: "none" },
  ],
  sections: [
    {
      title: "Limits",
      text: `stdout is capped at MAX_SCRIPT_OUTPUT bytes (default 1048576, or the skill's
limits.max_output); past the cap the script is stopped and the output is cut (a
warning and exit 1; in JSON mode a parse_error). At most 100 arguments and 4 KiB of
arguments in total. Precedence: --timeout, then SCRIPT_TIMEOUT / MAX_SCRIPT_OUTPUT,
then the skill's limits, then the defaults.`,
    },
    {
      title: "Environment",
      text: `SKILLS_UV (uv to use), SKILLS_PYTHON (interpreter when uv is absent),
SCRIPT_TIMEOUT, MAX_SCRIPT_OUTPUT, MAX_SCRIPT_MEMORY (bytes of address space per
process in the sandbox, default 4 GiB), SKILLS_ALLOW_NET (hosts granted to every run),
SKILLS_READ_ONLY=1 (the workspace stays read-only),
SKILLS_SANDBOX (auto: bubblewrap when it works here, else policy mode with a warning;
required: refuse without it; off: policy mode).`,
    },
    {
      title: "Receipt",
      text: `After a run that changed files in the workspace or used the network, one line on
stderr says what it did: the diff applied (files created, changed, deleted, at any
depth), guarded paths held back and where, hosts reached and refused. With --json the
receipt is on stderr as one JSON line (receipt: {...}) after the same runs; --verbose
prints it after every run.`,
    },
    {
      title: "Services",
      text: `--background starts the script as a service: it stays in its sandbox (the same
limits) after the command returns, supervised by a skills process of its own; its
output goes to logs (skills logs ID). Every TCP port it listens on at the sandbox's
loopback is served on this machine's 127.0.0.1, at the same port when it is free,
else at another: the command prints each http://127.0.0.1:PORT/. Folders granted with
--write are written live (the agent and the service see each other's files there);
everything else it writes is applied as a run's diff when it stops. It ends with
skills stop ID, after --idle-timeout without a connection or output, at
--max-lifetime, or when its skill is removed, updated or untrusted. Skills declare
the scripts meant to run so in permissions.services; another script needs your
--background all the same, with a warning. skills ps lists services.`,
    },
    {
      title: "Exit codes",
      text: `the script's own; 124 on timeout; 130 when interrupted; 2 for invalid
names or arguments; 1 for other failures.`,
    },
    {
      title: "Examples",
      text: `
  skills run kalshi-markets status --json
  skills run kalshi-markets markets --help
  skills run --timeout 10 kalshi-markets search bitcoin --json
  skills run --allow-net 127.0.0.1:8080 kalshi-markets status --json
  skills run --background --write .companion companion-lab companion --project-dir .companion`,
    },
  ],
} as const satisfies CommandSpec;
