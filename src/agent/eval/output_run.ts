/**
 * One output-eval run: a fresh workspace holding the eval's input files, the same loop as
 * `skills chat -p` over a tool surface whose catalog holds the skill (or, for the baseline,
 * no skill, or the previous version of the skill: `old_skill`), scripts sandboxed in that workspace; then the files the run created or changed
 * copied to `outputs/`, and the transcript and `timing.json` written beside them.
 */

import { basename, dirname, join, relative, resolve, sep } from "node:path";
import type { LanguageModel } from "ai";
import { SkillError } from "../../core/errors.ts";
import { isWithin } from "../../runtime/os/fs.ts";
import type { Catalog, LoadedSkill } from "../../runtime/catalog/catalog.ts";
import { ChatLoop, type TurnResult } from "../chat/chat_loop.ts";
import type { ProviderConfig } from "../chat/providers.ts";
import { createToolSurface } from "../surface/tools.ts";
import type { EvalCase } from "./eval_files.ts";

/** 2000-01-01T00:00:00Z, in seconds. */
const INPUT_TIME = 946_684_800;

export type Configuration = "with_skill" | "without_skill" | "old_skill";

interface RunSetting {
  home: string;
  env: Readonly<Record<string, string>>;
  model: LanguageModel;
  provider: ProviderConfig;
  maxSteps: number;
  /** `skills eval PATH`: the author's folder runs without a trust step. */
  allowUntrusted: boolean;
  signal?: AbortSignal | undefined;
  log?: (message: string) => void;
}

export interface RunOutcome {
  answer: string;
  turn: TurnResult;
  /** Paths under `outputs/` of the files the run created or changed. */
  outputs: string[];
  timing: Record<string, unknown>;
}

export function evalCatalog(home: string, skills: LoadedSkill[]): Catalog {
  return {
    home,
    skills,
    failures: [],
    notes: [],
    shadowed: [],
    project: undefined,
    installedDirs: [],
  };
}

/**
 * An eval's input file, which must stay inside the folder its evals file names files from
 * (the skill's; evals.json is data) — where it really is, so that a link in a cloned skill
 * cannot hand a file of yours to the model — and where the run's workspace holds it: at the
 * top under its name, or at its own path when the prompt names its folder ("the code is in
 * evals/fixtures/api"), as the eval's author wrote the prompt for that layout.
 */
async function inputFile(
  base: string,
  file: string,
  prompt: string,
): Promise<{ from: string; to: string }> {
  const from = resolve(base, file);
  const outside = (why: string) =>
    new SkillError("invalid_path", `Eval input file '${file}' ${why}`, {
      hint: "List files by their path inside the skill, e.g. evals/files/data.csv",
    });
  if (!isWithin(base, from) || from === base) throw outside("is outside the skill folder");
  const real = await Deno.realPath(from).catch(() => null);
  if (real === null) throw outside(`does not exist in ${base}`);
  if (!isWithin(await Deno.realPath(base), real) || !(await Deno.lstat(real)).isFile) {
    throw outside(`leads to ${real}, which is not a file inside ${base}`);
  }
  const inside = relative(base, from).split(sep).join("/");
  const folder = inside.includes("/") ? inside.slice(0, inside.lastIndexOf("/")) : "";
  return {
    from: real,
    to: folder !== "" && prompt.includes(folder) ? inside : basename(inside),
  };
}

/**
 * Every eval's input files checked as a run will copy them, before anything is sent: a file
 * that is missing or leads out of `base` ends the eval while nothing has been spent.
 */
export async function checkInputFiles(evals: readonly EvalCase[], base: string): Promise<void> {
  for (const evalCase of evals) {
    for (const file of evalCase.files) await inputFile(base, file, evalCase.prompt);
  }
}

/** Each regular file under `dir`, by relative path, with its bytes. */
async function snapshot(dir: string, base = dir, into = new Map<string, Uint8Array>()) {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) await snapshot(path, base, into);
    else if (entry.isFile) into.set(relative(base, path), await Deno.readFile(path));
  }
  return into;
}

function sameBytes(a: Uint8Array | undefined, b: Uint8Array): boolean {
  return a !== undefined && a.length === b.length && a.every((byte, i) => byte === b[i]);
}

/** Copies the created or changed files of the workspace into `outputs/`; returns their paths. */
async function collectOutputs(
  workspace: string,
  before: Map<string, Uint8Array>,
  outputs: string,
): Promise<string[]> {
  const after = await snapshot(workspace);
  const written: string[] = [];
  for (const [path, bytes] of [...after].sort(([a], [b]) => a.localeCompare(b))) {
    if (sameBytes(before.get(path), bytes)) continue;
    const target = join(outputs, path);
    await Deno.mkdir(dirname(target), { recursive: true });
    await Deno.writeFile(target, bytes);
    written.push(path);
  }
  return written;
}

/**
 * Runs one eval case into `runDir` (created by the caller): its input files from `filesBase`
 * (the folder its evals file names files from), `skills` in the catalog (none for the baseline).
 */
export async function runOutputCase(
  evalCase: EvalCase,
  filesBase: string,
  skills: LoadedSkill[],
  runDir: string,
  setting: RunSetting,
): Promise<RunOutcome> {
  const workspace = await Deno.makeTempDir({ prefix: "skills-eval-" });
  const outputs = join(runDir, "outputs");
  await Deno.mkdir(outputs, { recursive: true });
  try {
    for (const file of evalCase.files) {
      const { from, to } = await inputFile(filesBase, file, evalCase.prompt);
      const target = join(workspace, ...to.split("/"));
      await Deno.mkdir(dirname(target), { recursive: true });
      await Deno.copyFile(from, target);
      // An old, fixed time: a file stamped this very second may read as changed by the run
      // (the workspace walk cannot tell a same-second write), and every run, replays too,
      // starts from the same files.
      await Deno.utime(target, INPUT_TIME, INPUT_TIME);
    }
    const before = await snapshot(workspace);
    const surface = await createToolSurface({
      home: setting.home,
      catalog: evalCatalog(setting.home, skills),
      active: new Set(skills.map((s) => s.canonical)),
      env: setting.env,
      includeLocation: true,
      allowUntrusted: setting.allowUntrusted,
      cwd: workspace,
      ...(setting.log ? { log: setting.log } : {}),
    });
    const loop = new ChatLoop({
      model: setting.model,
      provider: setting.provider,
      surface,
      maxSteps: setting.maxSteps,
      stream: false,
      // 429 and Retry-After are the tape's to handle (model_tape.ts), counted and recorded.
      maxRetries: 0,
    });
    const start = new Date();
    const started = performance.now();
    let turn: TurnResult;
    try {
      turn = await loop.runTurn(evalCase.prompt, setting.signal ? { signal: setting.signal } : {});
    } finally {
      await surface.close();
    }
    const durationMs = Math.round(performance.now() - started);
    const written = await collectOutputs(workspace, before, outputs);
    const seconds = Math.round(durationMs / 100) / 10;
    const timing = {
      total_tokens: turn.usage.total_tokens,
      duration_ms: durationMs,
      total_duration_seconds: seconds,
      executor_start: start.toISOString(),
      executor_end: new Date(start.getTime() + durationMs).toISOString(),
      executor_duration_seconds: seconds,
    };
    return { answer: turn.answer, turn, outputs: written, timing };
  } finally {
    await Deno.remove(workspace, { recursive: true }).catch(() => {});
  }
}

const MAX_RESULT_CHARS = 4000;

/** The transcript as Markdown: the prompt, each tool call with its envelope, the answer. */
export function transcriptMarkdown(evalCase: EvalCase, outcome: RunOutcome): string {
  const lines = [
    `# Eval ${evalCase.id}: ${evalCase.name}`,
    "",
    "## Prompt",
    "",
    evalCase.prompt,
    "",
  ];
  lines.push("## Steps", "");
  if (outcome.turn.toolCalls.length === 0) lines.push("(no tool calls)", "");
  for (const [index, call] of outcome.turn.toolCalls.entries()) {
    // Times live in timing.json: without them a replayed transcript is the recorded one.
    const result = JSON.stringify(call.result, (k, v) => k === "duration_ms" ? undefined : v);
    lines.push(
      `### ${index + 1}. ${call.name}`,
      "",
      "```json",
      JSON.stringify(call.arguments),
      "```",
      "",
      "Result:",
      "",
      "```json",
      result.length > MAX_RESULT_CHARS ? `${result.slice(0, MAX_RESULT_CHARS)}…` : result,
      "```",
      "",
    );
  }
  lines.push("## Answer", "", outcome.answer || "(no answer)", "");
  lines.push("## Files created", "");
  lines.push(...(outcome.outputs.length ? outcome.outputs.map((p) => `- ${p}`) : ["(none)"]), "");
  return lines.join("\n");
}
