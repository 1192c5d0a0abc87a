/**
 * Grading one run, assertion by assertion, PASS or FAIL with evidence, in three tiers:
 *
 * 1. mechanical checks, where the assertion is one (a file exists or matches a glob, a file
 *    is valid JSON, the output contains a text or matches a pattern) — decided here;
 * 2. the skill's own verifiers, `evals/check_*.py|ts`, run in the sandbox with the run's
 *    outputs as their read-only workspace; each gets the pending assertions as arguments and
 *    prints `{"assertion_results": [{text, passed, evidence}]}` for those it decides;
 * 3. an LLM judge without tools for the rest, which must quote its evidence: a PASS whose
 *    evidence quotes nothing found in the outputs is a FAIL, and a reply that cannot be
 *    parsed is a FAIL for each of its assertions with the reply kept as evidence.
 */

import { join } from "node:path";
import type { LanguageModel } from "ai";
import { globToRegExp } from "../../core/glob.ts";
import { scriptRun } from "../../runtime/exec/script_service.ts";
import type { LoadedSkill } from "../../runtime/catalog/catalog.ts";
import { runModelStep } from "../chat/model_step.ts";
import { evalCatalog } from "./output_run.ts";

export interface AssertionResult {
  text: string;
  passed: boolean;
  evidence: string;
  /** How it was decided: `mechanical`, `verifier:<file>` or `judge`. */
  method: string;
}

/** What a run left to grade: its final answer and its output files' text. */
export interface GradingMaterial {
  answer: string;
  outputsDir: string;
  /** Relative paths under outputs/. */
  outputs: string[];
}

const MAX_FILE_CHARS = 20_000;

const quoted = String.raw`[\x60"'“]([^\x60"'”]+)[\x60"'”]`;
const FILE_EXISTS = new RegExp(
  String
    .raw`^(?:the )?(?:output )?(?:a )?file (?:named |matching )?${quoted} (?:exists|is created|was created)\.?$`,
  "i",
);
const VALID_JSON = new RegExp(
  String.raw`^(?:the )?(?:file )?${quoted} (?:is valid JSON|parses as JSON)\.?$`,
  "i",
);
const CONTAINS = new RegExp(
  String.raw`^(?:the )?(?:output|answer) (?:contains|includes|mentions) ${quoted}\.?$`,
  "i",
);
const MATCHES = /^(?:the )?(?:output|answer) matches \/(.+)\/([imsu]*)\.?$/i;

async function textOf(material: GradingMaterial, path: string): Promise<string | undefined> {
  try {
    const text = await Deno.readTextFile(join(material.outputsDir, path));
    return text.includes("\u0000") ? undefined : text.slice(0, MAX_FILE_CHARS);
  } catch {
    return undefined;
  }
}

/** The answer and every text output, as one string, for patterns and quotes. */
async function allText(material: GradingMaterial): Promise<string> {
  const parts = [material.answer];
  for (const path of material.outputs) parts.push((await textOf(material, path)) ?? "");
  return parts.join("\n");
}

/** A mechanical check when the assertion is one; undefined leaves it to the next tier. */
export async function mechanicalCheck(
  text: string,
  material: GradingMaterial,
): Promise<AssertionResult | undefined> {
  const result = (passed: boolean, evidence: string) => ({
    text,
    passed,
    evidence,
    method: "mechanical",
  });
  const exists = FILE_EXISTS.exec(text.trim());
  if (exists) {
    const pattern = globToRegExp(exists[1]!);
    const found = material.outputs.filter((p) => pattern.test(p));
    return found.length > 0 ? result(true, `Found ${found.join(", ")} in outputs/`) : result(
      false,
      `No file matching ${exists[1]} in outputs/ (${material.outputs.length} files)`,
    );
  }
  const json = VALID_JSON.exec(text.trim());
  if (json) {
    const content = await textOf(material, json[1]!);
    if (content === undefined) return result(false, `${json[1]} is not in outputs/`);
    try {
      JSON.parse(content);
      return result(true, `${json[1]} parses as JSON (${content.length} characters)`);
    } catch (error) {
      return result(false, `${json[1]} is not valid JSON: ${(error as Error).message}`);
    }
  }
  const contains = CONTAINS.exec(text.trim());
  if (contains) {
    const needle = contains[1]!;
    const found = (await allText(material)).toLowerCase().includes(needle.toLowerCase());
    return result(
      found,
      found ? `Found "${needle}" in the output` : `"${needle}" is not in the output`,
    );
  }
  const matches = MATCHES.exec(text.trim());
  if (matches) {
    let pattern: RegExp;
    try {
      pattern = new RegExp(matches[1]!, matches[2]);
    } catch (error) {
      return result(false, `Invalid pattern /${matches[1]}/: ${(error as Error).message}`);
    }
    const hit = pattern.exec(await allText(material));
    return result(hit !== null, hit ? `Matched "${hit[0]}"` : `Nothing matches /${matches[1]}/`);
  }
  return undefined;
}

/** The skill's verifiers: `evals/check_*.py` and `evals/check_*.ts`, sorted. */
export async function listVerifiers(skillDir: string): Promise<string[]> {
  const found: string[] = [];
  try {
    for await (const entry of Deno.readDir(join(skillDir, "evals"))) {
      if (entry.isFile && /^check_[A-Za-z0-9_-]+\.(py|ts)$/.test(entry.name)) {
        found.push(`evals/${entry.name}`);
      }
    }
  } catch { /* no evals folder: no verifiers */ }
  return found.sort();
}

export interface VerifierSetting {
  skill: LoadedSkill;
  home: string;
  env: Readonly<Record<string, string>>;
  allowUntrusted: boolean;
  signal?: AbortSignal | undefined;
}

/** Runs one verifier in the sandbox over the run's outputs; its decisions by assertion text. */
export async function runVerifier(
  verifier: string,
  pending: readonly string[],
  material: GradingMaterial,
  setting: VerifierSetting,
): Promise<Map<string, AssertionResult>> {
  const decided = new Map<string, AssertionResult>();
  const envelope = await scriptRun(
    evalCatalog(setting.home, [setting.skill]),
    setting.skill.canonical,
    verifier,
    pending,
    false,
    {
      home: setting.home,
      env: setting.env,
      allowUntrusted: setting.allowUntrusted,
      cwd: material.outputsDir,
      readOnly: true,
      signal: setting.signal,
    },
  );
  if (!envelope.success) return decided;
  let reply: unknown;
  try {
    reply = JSON.parse(String(envelope.result));
  } catch {
    return decided;
  }
  const results = (reply as { assertion_results?: unknown })?.assertion_results;
  if (!Array.isArray(results)) return decided;
  for (const item of results) {
    const { text, passed, evidence } = item as Record<string, unknown>;
    if (typeof text !== "string" || !pending.includes(text) || typeof passed !== "boolean") {
      continue;
    }
    decided.set(text, {
      text,
      passed,
      evidence: typeof evidence === "string" ? evidence : "",
      method: `verifier:${verifier}`,
    });
  }
  return decided;
}

const JUDGE_INSTRUCTIONS =
  "You grade the work of an AI agent against assertions. You have no tools. For each " +
  "assertion decide PASS only on concrete evidence in the material, and quote that evidence " +
  'word for word in double quotes ("..."); without such evidence it is a FAIL. Reply with ' +
  'one JSON object and nothing else: {"assertion_results": [{"text": "<the assertion>", ' +
  '"passed": true|false, "evidence": "<quote or reason>"}]}.';

async function judgeMaterial(material: GradingMaterial, assertions: readonly string[]) {
  const files: string[] = [];
  for (const path of material.outputs) {
    const text = await textOf(material, path);
    files.push(`<output_file path="${path}">\n${text ?? "(binary file)"}\n</output_file>`);
  }
  return [
    "<assertions>",
    ...assertions.map((a, i) => `${i + 1}. ${a}`),
    "</assertions>",
    "<final_answer>",
    material.answer || "(no answer)",
    "</final_answer>",
    ...files,
  ].join("\n");
}

/** The quoted passages of an evidence string ("…", “…”, `…`) of at least 3 characters. */
function quotesOf(evidence: string): string[] {
  return [...evidence.matchAll(/["“`]([^"”`]{3,})["”`]/g)].map((m) => m[1]!);
}

const squash = (text: string) => text.replace(/\s+/g, " ").trim().toLowerCase();

/** Asks the judge once for all `assertions`; never throws for a bad verdict. */
export async function judge(
  assertions: readonly string[],
  material: GradingMaterial,
  model: LanguageModel,
  signal?: AbortSignal,
): Promise<AssertionResult[]> {
  const step = await runModelStep({
    model,
    instructions: JUDGE_INSTRUCTIONS,
    messages: [{ role: "user", content: await judgeMaterial(material, assertions) }],
    tools: [],
    stream: false,
    signal,
    maxRetries: 0,
  });
  return verdicts(step.text, assertions, await allText(material));
}

/** The judge's reply → one result per assertion (pure). */
export function verdicts(
  reply: string,
  assertions: readonly string[],
  material: string,
): AssertionResult[] {
  const unparsed = (why: string) =>
    assertions.map((text) => ({
      text,
      passed: false,
      evidence: `The judge's verdict could not be read (${why}); its reply: ${
        reply.slice(0, 2000)
      }`,
      method: "judge",
    }));
  const start = reply.indexOf("{");
  const end = reply.lastIndexOf("}");
  if (start === -1 || end < start) return unparsed("no JSON object");
  let items: unknown;
  try {
    items = (JSON.parse(reply.slice(start, end + 1)) as { assertion_results?: unknown })
      .assertion_results;
  } catch {
    return unparsed("invalid JSON");
  }
  if (!Array.isArray(items)) return unparsed("no assertion_results list");
  const haystack = squash(material);
  return assertions.map((text, index) => {
    const item = (items as Record<string, unknown>[]).find((i) => i?.text === text) ??
      (items as Record<string, unknown>[])[index];
    if (item === undefined || typeof item.passed !== "boolean") {
      return { text, passed: false, evidence: "The judge gave no verdict for it", method: "judge" };
    }
    const evidence = typeof item.evidence === "string" ? item.evidence : "";
    if (!item.passed) return { text, passed: false, evidence, method: "judge" };
    const quoted = quotesOf(evidence).some((q) => haystack.includes(squash(q)));
    return quoted ? { text, passed: true, evidence, method: "judge" } : {
      text,
      passed: false,
      evidence: `PASS without evidence quoted from the outputs, counted as FAIL: ${evidence}`,
      method: "judge",
    };
  });
}
