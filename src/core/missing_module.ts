/**
 * Scripts from other people import third-party modules without declaring them. When one
 * fails with Python's `ModuleNotFoundError`, say which module is missing and how a skill
 * provides it, instead of leaving the user with a bare traceback.
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
