/**
 * The eval files a skill author writes, what they hold and where they are (below), read as
 * untrusted data: `evals/evals.json` (the agentskills.io guide's `assertions`, or
 * skill-creator's `expectations` for the same list) and `eval_queries.json` (`[{query,
 * should_trigger}]`). Parsing is pure; a file that does not have the documented shape is an
 * error naming the file and the field.
 *
 * Published skills spell these files a little differently, and each spelling is read as its
 * authors meant it: the evals as a bare list (no `{skill_name, evals}` around it), an eval
 * named by `eval_name` (skill-creator's `eval_metadata.json` key), an eval with no assertions
 * graded against its `expected_output`, and a trigger query's text under `prompt`.
 */

import { basename, dirname, join } from "node:path";
import { SkillError } from "../../core/errors.ts";
import { MANIFEST_FILES } from "../../core/manifest/limits.ts";

/** One output eval, as `skills eval` runs it. */
export interface EvalCase {
  id: number | string;
  /** For the folder name: the eval's `name`, else the first words of its prompt. */
  name: string;
  prompt: string;
  expected_output: string;
  /** Input files, relative to the skill folder. */
  files: string[];
  assertions: string[];
}

export interface EvalSet {
  skill_name: string;
  evals: EvalCase[];
}

export interface TriggerQuery {
  query: string;
  should_trigger: boolean;
}

function invalid(file: string, field: string, what: string): SkillError {
  return new SkillError("invalid_arguments", `Invalid ${file}: ${field} ${what}`, {
    hint: 'See docs/writing-skills.md, "Evaluating a skill", for the file\'s shape',
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function stringList(value: unknown, file: string, field: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== "string")) {
    throw invalid(file, field, "must be a list of strings");
  }
  return value as string[];
}

/** Lower-case words joined by `-`, at most five of them: a folder-safe name. */
function slug(text: string): string {
  const words = text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  return words.slice(0, 5).join("-") || "eval";
}

/**
 * The one assertion of an eval that lists none: what it expects, judged by the model (worded
 * so that no mechanical check reads it as one of theirs).
 */
export function expectedOutputAssertion(expected: string): string {
  return `The response does what the eval expected: ${expected.trim()}`;
}

/** A list of trigger queries: every entry an object with a boolean `should_trigger`. */
function holdsTriggerQueries(json: unknown): boolean {
  return Array.isArray(json) && json.length > 0 &&
    json.every((entry) => isObject(entry) && typeof entry.should_trigger === "boolean");
}

function parseCase(raw: unknown, index: number, file: string): EvalCase {
  const at = `evals[${index}]`;
  if (!isObject(raw)) throw invalid(file, at, "must be an object");
  const id = raw.id ?? index + 1;
  if (typeof id !== "number" && typeof id !== "string") {
    throw invalid(file, `${at}.id`, "must be a number or a string");
  }
  if (typeof raw.prompt !== "string" || raw.prompt.trim() === "") {
    throw invalid(file, `${at}.prompt`, "must be a non-empty string");
  }
  const expected = raw.expected_output ?? "";
  if (typeof expected !== "string") {
    throw invalid(file, `${at}.expected_output`, "must be a string");
  }
  // The guide spells the list `assertions`, skill-creator `expectations`: both are read.
  const assertions = [
    ...stringList(raw.assertions, file, `${at}.assertions`),
    ...stringList(raw.expectations, file, `${at}.expectations`),
  ];
  if (assertions.length === 0 && expected.trim() !== "") {
    assertions.push(expectedOutputAssertion(expected));
  }
  const given = [raw.name, raw.eval_name].find((n) => typeof n === "string" && n.trim() !== "");
  const name = slug(typeof given === "string" ? given : raw.prompt);
  return {
    id,
    name,
    prompt: raw.prompt,
    expected_output: expected,
    files: stringList(raw.files, file, `${at}.files`),
    assertions,
  };
}

/**
 * `evals/evals.json` as parsed JSON → the eval set: `{skill_name, evals: [...]}`, or the list of
 * evals alone. A list of trigger queries is refused with the command that runs them.
 */
export function parseEvalSet(json: unknown, file: string): EvalSet {
  if (holdsTriggerQueries(json)) {
    throw new SkillError(
      "invalid_arguments",
      `${file} holds trigger queries (should_trigger), not output evals`,
      { hint: `Run them as trigger evals: skills eval <skill> --triggers --queries ${file}` },
    );
  }
  const list = Array.isArray(json) ? json : isObject(json) ? json.evals : undefined;
  if (!Array.isArray(json) && !isObject(json)) {
    throw invalid(file, "the document", "must be a JSON object or a list of evals");
  }
  if (!Array.isArray(list) || list.length === 0) {
    throw invalid(file, "evals", "must be a non-empty list");
  }
  const evals = list.map((raw, index) => parseCase(raw, index, file));
  const ids = new Set<string>();
  for (const c of evals) {
    if (ids.has(String(c.id))) throw invalid(file, "evals", `has the id ${c.id} twice`);
    ids.add(String(c.id));
  }
  const skillName = isObject(json) && typeof json.skill_name === "string" ? json.skill_name : "";
  return { skill_name: skillName, evals };
}

/** `eval_queries.json` as parsed JSON → the queries (a query's text under `prompt` too). */
export function parseQueries(json: unknown, file: string): TriggerQuery[] {
  if (!Array.isArray(json) || json.length === 0) {
    throw invalid(file, "the document", "must be a non-empty list of {query, should_trigger}");
  }
  return json.map((raw, index) => {
    const query = isObject(raw) ? raw.query ?? raw.prompt : undefined;
    if (typeof query !== "string" || query.trim() === "") {
      throw invalid(file, `[${index}].query`, "must be a non-empty string");
    }
    if (typeof (raw as Record<string, unknown>).should_trigger !== "boolean") {
      throw invalid(file, `[${index}].should_trigger`, "must be true or false");
    }
    return { query, should_trigger: (raw as { should_trigger: boolean }).should_trigger };
  });
}

/** The folder of one eval in an iteration: `eval-<id>-<name>` (skill-creator reads the id). */
export function evalDirName(c: EvalCase): string {
  return `eval-${slug(String(c.id))}-${c.name}`;
}

/** Reads and parses a JSON file; a missing or broken file is an error that says which. */
export async function readJsonFile(path: string, what: string): Promise<unknown> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new SkillError("not_found", `Cannot read ${what}: ${path} does not exist`, {
        hint: 'See docs/writing-skills.md, "Evaluating a skill", for how to write it',
      });
    }
    throw error;
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new SkillError("parse_error", `Cannot read ${what}: ${path} is not valid JSON`, {
      hint: error instanceof Error ? error.message : String(error),
    });
  }
}

/*
 * Where a skill's eval files are. The guides keep them in the skill: `evals/evals.json` and
 * `evals/eval_queries.json`. Published repositories also keep them beside it: an `evals.json`
 * at the skill's root, or, for a skill that is the one skill of a Claude Code or Codex plugin
 * (`<plugin>/skills/<name>/` under a `.claude-plugin/plugin.json`), in the plugin's own
 * `evals/` folder or at its root — where the plugin's other files are too. Those places are
 * looked at only for a folder the author names (`skills eval ./path`): an installed skill is
 * its folder alone. A file given with `--evals` or `--queries` is read wherever it is.
 *
 * An eval's input files are paths relative to the folder that holds the file's `evals/`
 * folder (the skill's or the plugin's), or to the file's own folder when it is in none; they
 * must stay inside that folder (output_run.ts).
 */

/** The plugin manifests that make a folder a plugin, whose `skills/` holds its skills. */
const PLUGIN_MANIFESTS = [".claude-plugin/plugin.json", ".codex-plugin/plugin.json"];

/** The output evals of a skill, the file they came from and the folder their files are in. */
interface FoundEvals {
  evalSet: EvalSet;
  file: string;
  /** The folder an eval's `files` are relative to. */
  base: string;
  /** Found outside the guide's place (`evals/evals.json` of the skill). */
  elsewhere: boolean;
}

interface FoundQueries {
  queries: TriggerQuery[];
  file: string;
  elsewhere: boolean;
}

function exists(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

/** The folder an evals file's `files` are relative to: the one holding its `evals/` folder. */
export function evalsBase(file: string): string {
  const folder = dirname(file);
  return basename(folder) === "evals" ? dirname(folder) : folder;
}

/** Whether `dir` holds a skill (a manifest the loader accepts). */
function isSkill(dir: string): boolean {
  return MANIFEST_FILES.some((name) => exists(join(dir, name)));
}

/**
 * The plugin `skillDir` is the one skill of: `<plugin>/skills/<name>/` with a plugin manifest
 * at `<plugin>` and no other skill in its `skills/`. A plugin of several skills keeps evals no
 * one file can be said to belong to this one.
 */
function pluginOf(skillDir: string): string | undefined {
  const skills = dirname(skillDir);
  if (basename(skills) !== "skills") return undefined;
  const plugin = dirname(skills);
  if (!PLUGIN_MANIFESTS.some((manifest) => exists(join(plugin, manifest)))) return undefined;
  try {
    for (const entry of Deno.readDirSync(skills)) {
      const dir = join(skills, entry.name);
      if (entry.isDirectory && dir !== skillDir && isSkill(dir)) return undefined;
    }
  } catch {
    return undefined;
  }
  return plugin;
}

/** Where to look, in order: the guide's place first, then beside the skill, then its plugin. */
function places(skillDir: string, byPath: boolean, name: string): string[] {
  const found = [join(skillDir, "evals", name)];
  if (!byPath) return found;
  found.push(join(skillDir, name));
  const plugin = pluginOf(skillDir);
  if (plugin !== undefined) found.push(join(plugin, "evals", name), join(plugin, name));
  return found;
}

function notFound(what: string, looked: string[], hint: string): SkillError {
  return new SkillError(
    "not_found",
    `Cannot read ${what}: none of ${looked.join(", ")} exists`,
    { hint },
  );
}

/** The skill's output evals: `given` (`--evals FILE`), else the first place that has them. */
export async function findOutputEvals(
  skillDir: string,
  byPath: boolean,
  given?: string,
): Promise<FoundEvals> {
  if (given !== undefined) {
    const evalSet = parseEvalSet(await readJsonFile(given, "the evals"), given);
    return { evalSet, file: given, base: evalsBase(given), elsewhere: true };
  }
  const looked = places(skillDir, byPath, "evals.json");
  let triggers: string | undefined;
  for (const [at, file] of looked.entries()) {
    if (!exists(file)) continue;
    const json = await readJsonFile(file, "the skill's evals");
    // A list of trigger queries is not this file's kind: look on, and say so if nothing else.
    if (holdsTriggerQueries(json)) {
      triggers ??= file;
      continue;
    }
    return { evalSet: parseEvalSet(json, file), file, base: evalsBase(file), elsewhere: at > 0 };
  }
  if (triggers !== undefined) {
    throw new SkillError(
      "not_found",
      `The skill has no output evals: ${triggers} holds trigger queries (should_trigger)`,
      { hint: "Run them as trigger evals: the same command with --triggers reads that file" },
    );
  }
  throw notFound(
    "the skill's evals",
    looked,
    'See docs/writing-skills.md, "Evaluating a skill", for how to write them, or name the file with --evals FILE',
  );
}

/**
 * The skill's trigger queries: `given` (`--queries FILE`), else the first `eval_queries.json`,
 * else the first `evals.json` of the places above that is a list of trigger queries.
 */
export async function findTriggerQueries(
  skillDir: string,
  byPath: boolean,
  given?: string,
): Promise<FoundQueries> {
  if (given !== undefined) {
    const queries = parseQueries(await readJsonFile(given, "the trigger queries"), given);
    return { queries, file: given, elsewhere: true };
  }
  const looked = places(skillDir, byPath, "eval_queries.json");
  for (const [at, file] of looked.entries()) {
    if (!exists(file)) continue;
    const queries = parseQueries(await readJsonFile(file, "the trigger queries"), file);
    return { queries, file, elsewhere: at > 0 };
  }
  for (const file of places(skillDir, byPath, "evals.json")) {
    if (!exists(file)) continue;
    const json = await readJsonFile(file, "the trigger queries");
    if (holdsTriggerQueries(json)) {
      return { queries: parseQueries(json, file), file, elsewhere: true };
    }
  }
  throw notFound(
    "the trigger queries",
    looked,
    'See docs/writing-skills.md, "Evaluating a skill", for how to write them, or name the file with --queries FILE',
  );
}
