/**
 * The script surface shared by the CLI, the agent's `script_list` / `script_help` /
 * `script_run` tools and the MCP server, with the seed-000 result shapes and messages.
 * The three public functions never throw: every failure is a failure envelope.
 */

import { LANGUAGES } from "../../core/scripts/script_language.ts";
import { type Envelope, failFromError, ok } from "../../core/envelope.ts";
import { SkillError } from "../../core/errors.ts";
import {
  canonicalScriptName,
  canonicalSkillName,
  isValidSkillName,
  quoteName,
} from "../../core/names.ts";
import {
  type Catalog,
  findScript,
  findSkill,
  loadCatalog,
  type LoadedSkill,
  type ScriptInfo,
} from "../catalog/catalog.ts";
import { lstatSyncOrNull } from "../os/fs.ts";
import { skillCacheIdOf, skillGenerationOf, skillKeyOf } from "./spawn/skill_identity.ts";
import {
  executeRun,
  HELP_RUN,
  outcomeEnvelope,
  type PreparedRun,
  prepareResolved,
  type ResolvedRun,
  type ScriptDeps,
  stringArguments,
} from "./prepared_run.ts";
import { keepRunPlan } from "./run_plan.ts";

export { executeRun, outcomeEnvelope };
export type { ScriptDeps };

interface ScriptEntry {
  name: string;
  path: string;
  /** What runs it: python, bash, node or deno. */
  interpreter: string;
}

interface ScriptHelp {
  help_text: string;
  usage: string;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** `{ "<skill>": [{name, path}, ...] }`: one skill, or every skill that has scripts. */
export function scriptList(
  catalog: Catalog,
  skillName?: string | null,
): Envelope<Record<string, ScriptEntry[]>> {
  try {
    const entries = (skill: LoadedSkill) =>
      skill.scripts.map((s) => ({
        name: s.name,
        path: s.path,
        interpreter: LANGUAGES[s.language].label,
      }));
    if (skillName !== undefined && skillName !== null) {
      const skill = findSkill(catalog, skillName);
      return ok(
        { [skill.canonical]: entries(skill) },
        `Found ${plural(skill.scripts.length, "script")} in ${skill.canonical}`,
      );
    }
    const result: Record<string, ScriptEntry[]> = {};
    let count = 0;
    for (const skill of catalog.skills) {
      if (skill.scripts.length === 0) continue;
      result[skill.canonical] = entries(skill);
      count += skill.scripts.length;
    }
    const skills = Object.keys(result).length;
    return ok(result, `Found ${plural(count, "script")} across ${plural(skills, "skill")}`);
  } catch (error) {
    return failFromError(error);
  }
}

/**
 * The catalog a run of `skillName` needs, from `cwd`: of the installed and bundled skills only
 * those of that name are read, with every project skill (they shadow by name), so that
 * `findSkill` answers as with the whole catalog. What a sandbox hides needs no reading: the
 * registry names every installed folder (otherSkillDirs). The whole catalog for a name that
 * is no valid one (findSkill says why).
 */
export async function runCatalog(
  home: string,
  skillName: string,
  where: { cwd: string; env: Readonly<Record<string, string>> },
): Promise<Catalog> {
  const only = isValidSkillName(skillName) ? canonicalSkillName(skillName) : undefined;
  return await loadCatalog(home, { ...where, only });
}

/**
 * The folders of every skill but `skill` the catalog knows, for the sandbox to hide: those it
 * read, those that failed to load or were shadowed, and every installed one, read or not.
 */
function otherSkillDirs(catalog: Catalog, skill: LoadedSkill): string[] {
  const dirs = new Set([
    ...catalog.skills.map((s) => s.dir),
    ...catalog.failures.map((f) => f.dir),
    ...catalog.shadowed.map((s) => s.dir),
    ...catalog.installedDirs,
  ]);
  dirs.delete(skill.dir);
  return [...dirs];
}

/**
 * Runs the script with `--help`: `{help_text, usage}`. Whatever the script writes then is
 * discarded: asking a script how to use it never changes the user's folder (codeql's
 * build_log, given `--help`, runs it as a command and writes build.log).
 */
export async function scriptHelp(
  catalog: Catalog,
  skillName: string,
  scriptName: string,
  deps: ScriptDeps,
): Promise<Envelope<ScriptHelp>> {
  try {
    const probe = { ...deps, discard: HELP_RUN, review: undefined };
    const prepared = await prepareRun(catalog, skillName, scriptName, ["--help"], probe);
    const outcome = await executeRun(prepared, false, probe);
    if (outcome.error !== null) return outcomeEnvelope(prepared, outcome, false) as Envelope<never>;
    const text = outcome.stdout.trim() !== "" ? outcome.stdout : outcome.stderrTail;
    return ok(
      { help_text: text, usage: usageLine(text) },
      `Retrieved help for ${prepared.script.name}`,
    );
  } catch (error) {
    return failFromError(error);
  }
}

/** Runs the script; in JSON mode `--json` is appended unless present and stdout is parsed. */
export async function scriptRun(
  catalog: Catalog,
  skillName: string,
  scriptName: string,
  args: readonly string[] | null | undefined,
  json: boolean,
  deps: ScriptDeps,
): Promise<Envelope> {
  try {
    const prepared = await prepareRun(catalog, skillName, scriptName, args ?? [], deps);
    const outcome = await executeRun(prepared, json, deps);
    return outcomeEnvelope(prepared, outcome, json);
  } catch (error) {
    return failFromError(error);
  }
}

/**
 * Everything before the script starts, in the order the checks must pass (resolveRun, then
 * prepared_run.ts's prepareResolved). Throws SkillError.
 */
export async function prepareRun(
  catalog: Catalog,
  skillName: string,
  scriptName: string,
  args: readonly unknown[],
  deps: ScriptDeps,
): Promise<PreparedRun> {
  const { resolved, stringArgs } = await resolveRun(catalog, skillName, scriptName, args, deps);
  return await prepareResolved(resolved, stringArgs, deps);
}

/**
 * `skills run`'s way through the catalog: as prepareRun, and the resolution kept as the run
 * plan (run_plan.ts) for the next run of the same skill version. `startedAt`: when the
 * command began, before the catalog was read.
 */
export async function prepareRunAndPlan(
  catalog: Catalog,
  skillName: string,
  scriptName: string,
  args: readonly unknown[],
  deps: ScriptDeps & { cwd: string },
  startedAt: number,
): Promise<PreparedRun> {
  const { resolved, stringArgs, listed } = await resolveRun(
    catalog,
    skillName,
    scriptName,
    args,
    deps,
  );
  keepRunPlan(deps.home, { skill: skillName, script: scriptName }, resolved, {
    installedDir: listed.entry?.installed_path,
    cwd: deps.cwd,
    env: deps.env,
    startedAt,
    log: deps.log,
  });
  return await prepareResolved(resolved, stringArgs, deps);
}

/**
 * What the catalog and trust decide, in the order the checks must pass, each using the one
 * before: the names and the listed script, the arguments, trust and integrity (the verified
 * copy, where the script is found again). Throws SkillError.
 */
async function resolveRun(
  catalog: Catalog,
  skillName: string,
  scriptName: string,
  args: readonly unknown[],
  deps: ScriptDeps,
): Promise<{ resolved: ResolvedRun; stringArgs: string[]; listed: LoadedSkill }> {
  const listed = findSkill(catalog, skillName);
  const file = canonicalScriptName(scriptName);
  if (await lookupScript(listed, file, scriptName) === undefined) {
    throw scriptNotFound(listed, scriptName);
  }
  const stringArgs = stringArguments(args);
  // Trust, integrity, and the verified private copy the script runs from, described by its
  // own manifest (never the listing cache's). Loaded only when a script runs.
  const { verifiedSkill } = await import("../trust/snapshot.ts");
  const skill = await verifiedSkill(listed, deps.home, {
    allowUntrusted: deps.allowUntrusted === true,
  });
  const script = await verifiedScript(skill, file, scriptName);
  // Its cache and (as root) its uid belong to this skill of this origin only.
  const skillKey = skillKeyOf(listed);
  const resolved: ResolvedRun = {
    skill,
    script,
    digest: listed.entry?.trusted_digest ?? listed.project?.trustedDigest ?? null,
    skillKey,
    skillCacheId: await skillCacheIdOf(skillKey),
    skillGeneration: skillGenerationOf(listed),
    otherSkills: otherSkillDirs(catalog, skill),
  };
  return { resolved, stringArgs, listed };
}

/**
 * A script of `skill` by what the caller named: a listed script by its name, else any
 * other file of a script language by its path in the skill.
 */
async function lookupScript(
  skill: LoadedSkill,
  file: string,
  scriptName: string,
): Promise<ScriptInfo | undefined> {
  const asPath = String(scriptName).replace(/^(?:\.\/)+/, "");
  const listed = findScript(skill, file);
  if (listed !== undefined) return listed;
  // The skill's walkers only for a name no listed script has: a listed script needs none.
  const { scriptAtPath, scriptAtRoot } = await import("../catalog/contents.ts");
  return asPath.includes("/") ? scriptAtPath(skill.dir, asPath) : scriptAtRoot(skill.dir, asPath);
}

/** Script names a not-found error lists; past them, `skills scripts` lists the rest. */
const NAMED_SCRIPTS = 12;

/**
 * The script named is not one of `skill`'s: which ones it has (the first few, so that a model
 * that guessed a name gets the right one back in the same answer), and where to see them all.
 */
function scriptNotFound(skill: LoadedSkill, scriptName: string): SkillError {
  const names = skill.scripts.map((script) => script.name);
  const more = names.length - NAMED_SCRIPTS;
  const has = names.length === 0
    ? "It has no scripts under scripts/. "
    : `Its scripts: ${names.slice(0, NAMED_SCRIPTS).join(", ")}${
      more > 0 ? ` and ${more} more` : ""
    }. `;
  return new SkillError(
    "not_found",
    `Script '${quoteName(String(scriptName))}' not found in skill '${skill.canonical}'`,
    {
      hint: `${has}Run \`skills scripts ${skill.canonical}\` to see its scripts (a file ` +
        "elsewhere in the skill runs by its path from the skill root, e.g. resources/deploy.sh)",
    },
  );
}

/**
 * The script found again in the verified copy — the one that runs — and a regular file
 * there (never a link or a folder put in its place).
 */
async function verifiedScript(
  skill: LoadedSkill,
  file: string,
  scriptName: string,
): Promise<ScriptInfo> {
  const script = await lookupScript(skill, file, scriptName);
  if (script === undefined) throw scriptNotFound(skill, scriptName);
  const info = lstatSyncOrNull(script.path);
  if (info === null || !info.isFile || info.isSymlink) {
    throw new SkillError(
      "not_found",
      `Script '${script.name}' of skill '${skill.canonical}' is missing or not a regular file`,
    );
  }
  return script;
}

/** Whether a skill is served as verified: trusted, and installed, a project's or bundled. */
function servedVerified(skill: LoadedSkill): boolean {
  const installed = skill.entry !== undefined || skill.project !== undefined ||
    skill.origin === "core";
  return installed && skill.trusted;
}

/**
 * The skill as its files may be served to a model or an MCP host: instructions are code
 * too, so a trusted installed, project or bundled skill is read from its verified private
 * copy — unchanged since it was trusted, else `integrity_mismatch`, as for a script run. An
 * untrusted skill is read as it is (its instructions may be read before it is trusted; its
 * code never runs), and so is a skill a program opened by path (the library owns it).
 */
export async function servedSkill(
  skill: LoadedSkill,
  home: string,
  allowUntrusted: boolean,
): Promise<LoadedSkill> {
  if (!servedVerified(skill)) return skill;
  const { verifiedSkill } = await import("../trust/snapshot.ts");
  return await verifiedSkill(skill, home, { allowUntrusted });
}

/**
 * The bytes of a skill's SKILL.md as a model may read them: a trusted installed, project or
 * bundled skill's are the bytes its trust covers (trust/snapshot.ts; no copy is made to read
 * them), else `integrity_mismatch`; an untrusted skill's, or one a program opened by path,
 * are read as they are, as {@link servedSkill} serves them.
 */
export async function servedInstructions(
  skill: LoadedSkill,
  home: string,
  allowUntrusted: boolean,
): Promise<Uint8Array> {
  if (!servedVerified(skill)) return Deno.readFileSync(skill.skillMdPath);
  const { verifiedInstructions } = await import("../trust/snapshot.ts");
  return await verifiedInstructions(skill, home, { allowUntrusted });
}

/** The `usage:` paragraph of a help text (argparse wraps it), or its first line. */
export function usageLine(help: string): string {
  const lines = help.split(/\r?\n/);
  const start = lines.findIndex((l) => /^\s*usage:/i.test(l));
  if (start === -1) return lines.find((l) => l.trim() !== "")?.trim() ?? "";
  const parts = [lines[start]!.trim()];
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === "" || !/^\s/.test(line)) break;
    parts.push(line.trim());
  }
  return parts.join(" ").replace(/\s+/g, " ");
}
