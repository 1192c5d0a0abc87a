/**
 * Next steps for the ways scripts from other people commonly fail, instead of leaving the
 * user with a bare traceback: a third-party module imported without being declared
 * (Python's `ModuleNotFoundError`), an npm package a Node script imports and nothing
 * installed, a write the sandbox refused (into the skill's own
 * folder, always read-only, or outside what the workspace lets scripts write), and no
 * network where the skill declares none.
 */

const MISSING = /ModuleNotFoundError: No module named '([A-Za-z_][A-Za-z0-9_.]*)'/;

/** The top-level module a Python traceback says is missing, if it says so. */
export function missingPythonModule(stderr: string): string | undefined {
  const name = MISSING.exec(stderr)?.[1];
  return name?.split(".")[0];
}

/** The files a Python traceback names (`File "…/scripts/pkg/extract.py", line 20`). */
const TRACEBACK_FILE = /^\s*File "([^"\n]+)", line \d+/gm;

/** The last file a Python traceback names: where the error was raised. */
function lastTracebackFile(stderr: string): string | undefined {
  return [...stderr.matchAll(TRACEBACK_FILE)].at(-1)?.[1];
}

/**
 * Whether the missing module is a package the failing import sits in — the traceback's last
 * file, `scripts/culture_index/extract.py` importing `culture_index.models`: one the skill
 * ships, which resolves when the script that runs is outside it (Python puts the running
 * script's folder on its path), and which no pip install provides. Only the last file: an
 * earlier frame in `/usr/lib/…` says nothing of a missing `lib`.
 */
function insideOwnPackage(stderr: string, module: string): boolean {
  return lastTracebackFile(stderr)?.split("/").slice(0, -1).includes(module) ?? false;
}

/** A next step for a script that failed on a missing module, or undefined. */
export function missingModuleHint(stderr: string): string | undefined {
  const module = missingPythonModule(stderr);
  if (module === undefined) return undefined;
  if (insideOwnPackage(stderr, module)) {
    return `'${module}' is a package the skill ships, and the script that failed is one of its ` +
      `modules: run from inside its folder, it cannot import its own package. Run the script ` +
      `the skill's SKILL.md names for this (one outside the '${module}' folder), not the ` +
      `module itself.`;
  }
  // Aimed at the user, who can act: install uv (which provides what the script declares),
  // or the module for the python3 that runs it. The author's part comes last.
  return `The script needs the Python module '${module}', which is not installed for the ` +
    `python3 that runs it. Install uv (https://docs.astral.sh/uv/) so \`uv run\` provides ` +
    `what the script declares, or install the package yourself (python3 -m pip install ` +
    `<package for '${module}'>). If the script does not declare it (PEP 723 ` +
    `"# /// script" dependencies), tell its author.`;
}

/** `EROFS` anywhere; `EACCES` on a relative path or a run copy (else it may be a read). */
const WRITE_REFUSED =
  /Read-only file system: '([^']*)'|Permission denied: '([^/'][^']*|[^']*\/\.cache\/run\/[^']*)'/;
const SKILL_COPY = /\/\.cache\/run\//;

/**
 * A next step for a script whose write was refused: into its own skill (always
 * read-only: scripts run from a verified copy the sandbox mounts read-only, whose folders
 * are sealed), anywhere else the sandbox does not let scripts write (`EROFS`: outside the
 * workspace, a guarded path inside it, or a workspace kept read-only), or a file in the
 * workspace whose own permissions forbid it (`EACCES`: the sandbox never answers that way,
 * so --write would not help).
 */
export function readOnlyHint(stderr: string): string | undefined {
  const match = WRITE_REFUSED.exec(stderr);
  if (match === null) return undefined;
  const path = match[1] ?? match[2]!;
  if (SKILL_COPY.test(path)) {
    return "Scripts cannot change their skill: its folder is read-only. Write to the " +
      "workspace (the working directory), $SKILLS_WORK_DIR (a fresh folder for each run) or " +
      "$XDG_CACHE_HOME (kept between runs), and hand results back on stdout.";
  }
  if (match[2] !== undefined) {
    return `'${path}' does not let the script write it: the file's permissions, or its ` +
      "folder's, leave out the write bit for the user the script runs as (a file copied " +
      "with its mode from a read-only place stays read-only). Make it writable (chmod u+w) " +
      "or write a new file, in the workspace, $SKILLS_WORK_DIR or $XDG_CACHE_HOME.";
  }
  return `The sandbox refused the write to '${path}'. Scripts may write the workspace (the ` +
    "folder you ran skills from, unless it is your home or --read-only / SKILLS_READ_ONLY " +
    "keeps it read-only), except guarded paths such as .git/hooks, .vscode/ or .claude/, " +
    "plus $SKILLS_WORK_DIR and $XDG_CACHE_HOME. Run it from the folder it should write, or " +
    "grant one more folder with --write PATH.";
}

/**
 * A program a script tried to start and could not find, as its language reports it: Python's
 * subprocess (`FileNotFoundError: … No such file or directory: 'gh'`, raised in
 * `_execute_child`, so never a data file the script opened), a shell (`gh: command not
 * found`, dash's `gh: not found`), Node (`spawn gh ENOENT`) and Deno (`Failed to spawn 'gh'`).
 */
export function missingProgram(stderr: string): string | undefined {
  const python = /_execute_child[\s\S]*No such file or directory: '([^'\n]+)'/.exec(stderr);
  // bash's `x.sh: line 4: gh: command not found` or `bash: gh: …`, dash's `sh: 1: gh: not
  // found`: after a line number or a shell's name only, never any tool's `x: not found`.
  const shell = /(?:^|\s)(?:line \d+|\d+|[\w./-]*sh): ([A-Za-z0-9._+-]+): (?:command )?not found$/m
    .exec(stderr);
  const node = /\bspawn (\S+) ENOENT\b/.exec(stderr);
  const deno = /Failed to spawn '([^'\n]+)'/.exec(stderr);
  const program = (python ?? shell ?? node ?? deno)?.[1];
  // A name the hint can repeat: a program or a path, never the script's control characters.
  return program !== undefined && /^[\w.+\/-]+$/.test(program) ? program : undefined;
}

/**
 * A next step for a script that could not start `program`: `found` is where the host has it
 * on the script's PATH, and `hidden` says the sandbox hides that folder (the home, /tmp).
 */
export function missingProgramHint(program: string, found?: string, hidden = false): string {
  if (found !== undefined && hidden) {
    return `The script runs \`${program}\`, which is installed at ${found}: inside a folder ` +
      `the sandbox hides from scripts (your home, /tmp). Install it in a system folder ` +
      `(/usr/local/bin, /usr/bin) for the skill's scripts to find it.`;
  }
  if (found !== undefined) {
    return `The script runs \`${program}\` (${found} on this machine), which it could not ` +
      `start: check that it runs for you, outside skills.`;
  }
  return `The script runs \`${program}\`, which is not installed on this machine (not on ` +
    `PATH). Install it; the skill's \`compatibility\` field or SKILL.md may say which ` +
    `version it needs.`;
}

/**
 * What a JavaScript or TypeScript script could not import, as Node reports it: `Cannot find
 * package 'puppeteer' imported from …` (an ES module) or `Cannot find module './lib/x'`
 * (require); or as Deno does for a script beside a package.json: `Could not resolve
 * "puppeteer", but found it in a package.json`.
 */
export function missingNodeImport(stderr: string): string | undefined {
  return (/\bCannot find (?:package|module) '([^'\n]+)'/.exec(stderr) ??
    /\bCould not resolve "([^"\n]+)", but found it in a package\.json/.exec(stderr))?.[1];
}

/**
 * The npm package of {@link missingNodeImport}: a path (`./lib/x`, `/abs`) or a built-in
 * (`node:fs`) is not a package, and is never named here.
 */
export function missingNodePackage(stderr: string): string | undefined {
  const found = missingNodeImport(stderr);
  if (found === undefined || /^(?:[./]|node:)/.test(found)) return undefined;
  // `@scope/name/sub` → `@scope/name`, `name/sub` → `name`.
  const name = found.split("/").slice(0, found.startsWith("@") ? 2 : 1).join("/");
  // What npm calls a package name; anything else (the script's control characters) is not
  // repeated in a hint.
  return /^(?:@[\w.~-]+\/)?[\w.~-]+$/.test(name) ? name : undefined;
}

/** A next step for a Node script that failed on a package it imports, or undefined. */
function missingNodePackageHint(stderr: string): string | undefined {
  const name = missingNodePackage(stderr);
  if (name === undefined) return undefined;
  return `The script needs the npm package '${name}', which is not installed beside it: ` +
    `skills runs a skill's files as they were installed and installs no npm packages for ` +
    `its scripts (a package.json is not read). Tell the skill's author: a script that ` +
    `bundles what it imports, or a Deno script with npm: imports, runs as shipped.`;
}

/**
 * A next step for a Python file of the skill that does not parse: `SyntaxError` with the
 * last file Python names inside the skill's run copy (never a library's), as a script
 * written for Python 3.12 meets a 3.11 (`f-string expression part cannot include a
 * backslash`).
 */
export function newerPythonHint(stderr: string): string | undefined {
  if (!/^SyntaxError: /m.test(stderr)) return undefined;
  if (!SKILL_COPY.test(lastTracebackFile(stderr) ?? "")) return undefined;
  return "The skill's Python does not parse with the python3 that runs it: it is likely " +
    "written for a newer Python (or has a syntax error). Set SKILLS_PYTHON to a newer " +
    "python3, or install uv, which runs a script with the Python its PEP 723 block requires " +
    "(requires-python); if the script does not say, tell its author.";
}

/** The first hint that applies to a failed script's stderr, or undefined. */
export function scriptFailureHint(stderr: string): string | undefined {
  return missingModuleHint(stderr) ?? missingNodePackageHint(stderr) ?? newerPythonHint(stderr) ??
    readOnlyHint(stderr) ?? noNetworkHint(stderr);
}

/** What a failed connection prints, in the languages and tools scripts are written in. */
const NETWORK_ERROR =
  /Temporary failure in name resolution|Name or service not known|Network is unreachable|\bE(?:CONNREFUSED|NOTFOUND|AI_AGAIN)\b|\bcurl: \(\d+\)|\bwget: unable|URLError|ConnectionError|ConnectTimeout|socket\.gaierror|fetch failed|Could not resolve host/;

/** A script that failed to resolve or reach a host: the sandbox gives it no network. */
function noNetworkHint(stderr: string): string | undefined {
  if (!NETWORK_ERROR.test(stderr)) return undefined;
  return "The sandbox gives scripts no network except the hosts their skill declares " +
    "(permissions.network). If this script should reach a host, run it with " +
    "--allow-net HOST[:PORT] or set SKILLS_ALLOW_NET=HOST[:PORT].";
}

/**
 * Exit codes of a failed connection: curl's "could not resolve host" (6), "could not connect"
 * (7) and "timed out" (28), wget's "network failure" (4).
 */
const NETWORK_EXIT_CODES = new Set([4, 6, 7, 28]);

/**
 * Whether a failed script looks like it failed to connect: curl's or wget's exit codes, or a
 * connection error in its stderr. A script that failed on its arguments (`$2: unbound
 * variable`) is not told about the network, even when it names a host.
 */
export function looksLikeNetworkFailure(exitCode: number | null, stderr: string): boolean {
  return (exitCode !== null && NETWORK_EXIT_CODES.has(exitCode)) || NETWORK_ERROR.test(stderr);
}

/** Hosts a URL in a script names (`https://api.example.com/v1` → `api.example.com`). */
const NAMED_URL = /\bhttps?:\/\/([A-Za-z0-9.-]+\.[A-Za-z]{2,})(?::(\d{1,5}))?(?=[/"'`\s)?#]|$)/g;
/** Hosts a script names only as examples or for this machine: never a grant to suggest. */
const NOT_A_SERVICE =
  /^(?:localhost|[\d.]+|(?:.*\.)?(?:example|test|invalid|local)(?:\.[a-z]+)?)$/i;
/** Hosts named at most in one hint. */
const HOSTS_NAMED = 3;

/**
 * A script that failed in a sandbox given no network at all (its skill declares none, and
 * no grant was made), whose text names hosts: which ones, and the grant that lets it reach
 * them. `curl -s` fails with exit 6 and prints nothing, so stderr alone cannot tell; the
 * script's own URLs can (vercel-labs' deploy-to-vercel posts to its deploy endpoint).
 */
export function unreachedHostsHint(
  skill: string,
  script: string,
  text: string,
): string | undefined {
  const hosts: string[] = [];
  for (const m of text.matchAll(NAMED_URL)) {
    const host = m[1]!.toLowerCase().replace(/\.$/, "");
    const target = m[2] === undefined || m[2] === "443" || m[2] === "80" ? host : `${host}:${m[2]}`;
    if (NOT_A_SERVICE.test(host) || hosts.includes(target)) continue;
    hosts.push(target);
    if (hosts.length === HOSTS_NAMED) break;
  }
  if (hosts.length === 0) return undefined;
  return `'${skill}' declares no network access, so the sandbox gave this run none, and ` +
    `${script} names ${hosts.join(", ")}. If the script should reach ` +
    `${hosts.length === 1 ? "it" : "them"}, run it with ` +
    `${hosts.map((h) => `--allow-net ${h}`).join(" ")} or set SKILLS_ALLOW_NET=${hosts.join(",")}.`;
}
