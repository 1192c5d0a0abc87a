/**
 * Python's launch: `uv run --script` when uv is there (PEP 723 dependencies or a
 * requirements file are then installed by uv), else python3 when nothing needs
 * installing or every declared package already imports, else `dependency_unavailable`
 * saying what to install.
 */

import { findOnPath } from "../../os/probe.ts";
import { isWithin, readPrefixSync } from "../../os/fs.ts";
import { relative } from "../../os/paths.ts";
import { SkillError } from "../../../core/errors.ts";
import {
  importNameOf,
  pep723Dependencies,
  requirementName,
  requirementsTxtEntries,
} from "../../../core/scripts/pep723.ts";
import { requirementsFile } from "../../catalog/requirements_file.ts";

/** How a Python script is started: uv, a plain python, or (Windows) `python -m uv`. */
export interface PythonLaunch {
  command: string;
  args: string[];
  launcher: "uv" | "python3" | "python-m-uv";
  /** uv will fetch packages (PEP 723 dependencies or a requirements file): the index is granted. */
  fetchesPackages?: boolean;
  /**
   * A help run started with packages it declares missing (see {@link planPython}'s `help`):
   * the refusal it would have had, raised if the run fails.
   */
  unmet?: SkillError;
}

export const UV_HINT =
  "Install uv (https://docs.astral.sh/uv/) so `uv run --script` can provide the dependencies, or set SKILLS_UV to its path";

/**
 * The launch of a Python script: `uv run --script <abs> <args>` when uv is on PATH (or
 * SKILLS_UV), with `--with-requirements <file>` when the script has no PEP 723 block and a
 * `requirements.txt` sits in its folder or at the skill root (`skillDir`); else python3
 * (SKILLS_PYTHON) if nothing needs installing; else `dependency_unavailable` naming what.
 * On Windows without uv: plain `python`, or `python -m uv run --script` for dependencies.
 * `help`: the run asks the script for its help, and runs even with packages missing, since
 * many scripts print their usage before they import what the work needs (an agent reads it to
 * learn the script); the refusal is kept as `unmet`, for the run to raise if it fails.
 */
export async function planPython(
  scriptPath: string,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  os: typeof Deno.build.os,
  skillDir: string | undefined,
  help = false,
): Promise<PythonLaunch> {
  const source = readScript(scriptPath);
  // PEP 723 first; a requirements file only for scripts without a block.
  const requirements = hasPep723Block(source) ? undefined : requirementsFile(scriptPath, skillDir);
  const dependencies = pep723Dependencies(source);
  const fetchesPackages = requirements !== undefined || dependencies !== "none";
  const uvArgs = [
    "run",
    ...(requirements === undefined ? [] : ["--no-project", "--with-requirements", requirements]),
    "--script",
    scriptPath,
    ...args,
  ];
  const uv = uvCommand(env, os);
  if (uv !== undefined) return { command: uv, args: uvArgs, launcher: "uv", fetchesPackages };
  const windows = os === "windows";
  const python = env.SKILLS_PYTHON?.trim() || (windows ? "python" : "python3");
  if (!fetchesPackages) {
    return { command: python, args: [scriptPath, ...args], launcher: "python3" };
  }
  const missing = await packagesMissing(python, dependencies, requirements, skillDir, env);
  if (missing === "none") {
    return { command: python, args: [scriptPath, ...args], launcher: "python3" };
  }
  if (windows) {
    return {
      command: python,
      args: ["-m", "uv", ...uvArgs],
      launcher: "python-m-uv",
      fetchesPackages,
    };
  }
  const refusal = dependencyUnavailable(
    inSkill(scriptPath, skillDir),
    python,
    requirements === undefined ? undefined : inSkill(requirements, skillDir),
    dependencies,
    missing,
  );
  if (help) {
    return { command: python, args: [scriptPath, ...args], launcher: "python3", unmet: refusal };
  }
  throw refusal;
}

/** A Python script's source (its PEP 723 block and the launcher are read from it). */
function readScript(scriptPath: string): string {
  try {
    return Deno.readTextFileSync(scriptPath);
  } catch (error) {
    throw new SkillError(
      "not_found",
      `Cannot read script ${scriptPath}: ${(error as Error).message}`,
    );
  }
}

/** The uv to run with: SKILLS_UV when set, else `uv` when on PATH; undefined without one. */
function uvCommand(
  env: Readonly<Record<string, string>>,
  os: typeof Deno.build.os,
): string | undefined {
  const configuredUv = env.SKILLS_UV?.trim();
  if (configuredUv) return configuredUv;
  return findOnPath("uv", env, os) ? "uv" : undefined;
}

/**
 * Without uv, declared packages (PEP 723, else the requirements file) that already import in
 * this python need no installing: `"none"` when every one does; else the ones that do not, or
 * undefined when that cannot be told (a requirements file with options, dependencies not read,
 * a name not understood, no answer).
 */
async function packagesMissing(
  python: string,
  dependencies: ReturnType<typeof pep723Dependencies>,
  requirements: string | undefined,
  skillDir: string | undefined,
  env: Readonly<Record<string, string>>,
): Promise<"none" | string[] | undefined> {
  const declared = requirements !== undefined
    ? requirementsListed(requirements)
    : Array.isArray(dependencies)
    ? dependencies
    : undefined;
  const distributions = declared?.map(requirementName);
  if (distributions === undefined || !distributions.every((d) => d !== undefined)) {
    return undefined;
  }
  const wanted = distributions as string[];
  const unimportable = await missingModules(python, wanted.map(importNameOf), skillDir, env);
  if (unimportable?.length === 0) return "none";
  if (unimportable === undefined) return undefined;
  return wanted.filter((d) => unimportable.includes(importNameOf(d)));
}

/**
 * A path as the skill's own (`scripts/requirements.txt`): the folder a script runs from is
 * a verified copy under the skills home's cache, whose path says nothing to the user.
 */
function inSkill(path: string, skillDir: string | undefined): string {
  return skillDir !== undefined && path !== skillDir && isWithin(skillDir, path)
    ? relative(skillDir, path)
    : path;
}

/** Why a Python script cannot start without uv, and what to install (uv, or the packages). */
function dependencyUnavailable(
  scriptPath: string,
  python: string,
  requirements: string | undefined,
  dependencies: ReturnType<typeof pep723Dependencies>,
  missing: string[] | undefined,
): SkillError {
  const listed = requirements === undefined ? "" : ` (listed in ${requirements})`;
  const what = missing !== undefined
    ? `needs the Python package${missing.length === 1 ? "" : "s"} ${
      missing.join(", ")
    }${listed}, not installed for ${python},`
    : requirements !== undefined
    ? `needs the packages listed in ${requirements}`
    : dependencies === "unknown"
    ? "declares dependencies this tool cannot read"
    : `needs ${(dependencies as string[]).join(", ")}`;
  return new SkillError(
    "dependency_unavailable",
    `Cannot run ${scriptPath}: the script ${what} and uv is not installed`,
    {
      hint: missing === undefined
        ? UV_HINT
        : `${UV_HINT}; or install ${
          missing.length === 1 ? "it" : "them"
        } for ${python} yourself: ${python} -m pip install ${missing.join(" ")}`,
    },
  );
}

/** Which of these top-level modules `python` cannot import, by name; memoised per process. */
const probed = new Map<string, Promise<string[] | undefined>>();
const PROBE = "import importlib.util, json, sys\n" +
  "if sys.argv[1]: sys.path.insert(0, sys.argv[1])\n" +
  "print(json.dumps([m for m in sys.argv[2:] if importlib.util.find_spec(m) is None]))";

/**
 * The modules of `modules` that `python` cannot find, as a script would import them (the
 * skill root first on sys.path, no user site-packages: a sandboxed script's HOME is its
 * work folder). Nothing is imported, only looked up. Undefined when python cannot tell.
 */
function missingModules(
  python: string,
  modules: readonly string[],
  skillDir: string | undefined,
  env: Readonly<Record<string, string>>,
): Promise<string[] | undefined> {
  const key = [python, skillDir ?? "", ...modules].join("\0");
  let answer = probed.get(key);
  if (answer === undefined) {
    answer = (async () => {
      try {
        const out = await new Deno.Command(python, {
          args: ["-I", "-c", PROBE, skillDir ?? "", ...modules],
          cwd: "/",
          env: { PATH: env.PATH ?? "/usr/bin:/bin" },
          clearEnv: true,
          stdin: "null",
          stdout: "piped",
          stderr: "null",
          signal: AbortSignal.timeout(10_000),
        }).output();
        if (!out.success) return undefined;
        const list = JSON.parse(new TextDecoder().decode(out.stdout));
        return Array.isArray(list) && list.every((m) => typeof m === "string") ? list : undefined;
      } catch {
        return undefined; // no such python, or it could not answer: uv is needed
      }
    })();
    probed.set(key, answer);
  }
  return answer;
}

/** Whether a Python source has a PEP 723 `# /// script` block (even one without dependencies). */
function hasPep723Block(source: string): boolean {
  return /^# \/\/\/ script\r?$/m.test(source);
}

/** What a requirements file lists (its first 64 KiB); undefined when that cannot be told. */
function requirementsListed(path: string): string[] | undefined {
  try {
    const { bytes, complete } = readPrefixSync(path, 64 * 1024);
    return complete ? requirementsTxtEntries(new TextDecoder().decode(bytes)) : undefined;
  } catch {
    return undefined; // unreadable: uv is needed to tell
  }
}
