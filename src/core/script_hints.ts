/**
 * Next steps for the ways scripts from other people commonly fail, instead of leaving the
 * user with a bare traceback: a third-party module imported without being declared
 * (Python's `ModuleNotFoundError`), and a write into the skill's own folder, which is
 * read-only (scripts run from a sealed verified copy, read-only again in the OS sandbox).
 */

const MISSING = /ModuleNotFoundError: No module named '([A-Za-z_][A-Za-z0-9_.]*)'/;

/** The top-level module a Python traceback says is missing, if it says so. */
export function missingPythonModule(stderr: string): string | undefined {
  const name = MISSING.exec(stderr)?.[1];
  return name?.split(".")[0];
}

/** A next step for a script that failed on a missing module, or undefined. */
export function missingModuleHint(stderr: string): string | undefined {
  const module = missingPythonModule(stderr);
  if (module === undefined) return undefined;
  return `The script needs the Python module '${module}', which is not installed. ` +
    `Declare its package in the script's PEP 723 block (# /// script, ` +
    `# dependencies = ["<package>"]) and install uv (https://docs.astral.sh/uv/) so ` +
    `\`uv run\` provides it, or install it for the python3 that runs the script.`;
}

/** `EROFS` anywhere; `EACCES` on a relative path (the script's folder is its cwd) or a run copy. */
const READ_ONLY =
  /Read-only file system|Permission denied: '(?:[^/'][^']*|[^']*\/\.cache\/run\/[^']*)'/;

/** A next step for a script that failed writing into its own (read-only) skill. */
export function readOnlyHint(stderr: string): string | undefined {
  if (!READ_ONLY.test(stderr)) return undefined;
  return "Scripts cannot change their skill: its folder (the script's working directory) is " +
    "read-only. Write to $SKILLS_WORK_DIR (a fresh folder for each run) or $XDG_CACHE_HOME " +
    "(kept between runs), and hand results back on stdout.";
}

/** The first hint that applies to a failed script's stderr, or undefined. */
export function scriptFailureHint(stderr: string): string | undefined {
  return missingModuleHint(stderr) ?? readOnlyHint(stderr);
}
