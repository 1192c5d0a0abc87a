/**
 * The eval files a skill author writes, read as untrusted data: `evals/evals.json` (the
 * agentskills.io guide's `assertions`, or skill-creator's `expectations` for the same list)
 * and `eval_queries.json` (`[{query, should_trigger}]`). Parsing is pure; a file that does
 * not have the documented shape is an error naming the file and the field.
 */

import { SkillError } from "../../core/errors.ts";

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
  const name = typeof raw.name === "string" && raw.name.trim() !== ""
    ? slug(raw.name)
    : slug(raw.prompt);
  return {
    id,
    name,
    prompt: raw.prompt,
    expected_output: expected,
    files: stringList(raw.files, file, `${at}.files`),
    assertions,
  };
}

/** `evals/evals.json` as parsed JSON → the eval set. */
export function parseEvalSet(json: unknown, file: string): EvalSet {
  if (!isObject(json)) throw invalid(file, "the document", "must be a JSON object");
  if (!Array.isArray(json.evals) || json.evals.length === 0) {
    throw invalid(file, "evals", "must be a non-empty list");
  }
  const evals = json.evals.map((raw, index) => parseCase(raw, index, file));
  const ids = new Set<string>();
  for (const c of evals) {
    if (ids.has(String(c.id))) throw invalid(file, "evals", `has the id ${c.id} twice`);
    ids.add(String(c.id));
  }
  const skillName = typeof json.skill_name === "string" ? json.skill_name : "";
  return { skill_name: skillName, evals };
}

/** `eval_queries.json` as parsed JSON → the queries. */
export function parseQueries(json: unknown, file: string): TriggerQuery[] {
  if (!Array.isArray(json) || json.length === 0) {
    throw invalid(file, "the document", "must be a non-empty list of {query, should_trigger}");
  }
  return json.map((raw, index) => {
    if (!isObject(raw) || typeof raw.query !== "string" || raw.query.trim() === "") {
      throw invalid(file, `[${index}].query`, "must be a non-empty string");
    }
    if (typeof raw.should_trigger !== "boolean") {
      throw invalid(file, `[${index}].should_trigger`, "must be true or false");
    }
    return { query: raw.query, should_trigger: raw.should_trigger };
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
