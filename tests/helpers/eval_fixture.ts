/**
 * `skills eval` set-ups shared by its tests: the fixture skill copied into a temp folder,
 * the scripted eval model on loopback, and the CLI run against them.
 */

import { join } from "node:path";
import { type LlmServer, startLlmServer } from "../fixtures/llm_server.ts";
import { evalModel } from "../fixtures/eval_model.ts";
import { type CliResult, REPO_ROOT, runCli, tempDir } from "./cli.ts";

export const EVAL_SKILL_FIXTURE = join(
  REPO_ROOT,
  "tests",
  "fixtures",
  "eval_skill",
  "report-writer",
);
/** An API key no file the eval writes may contain. */
export const SECRET_KEY = "sk-eval-SECRET-7f3a9c";

export interface EvalFixture {
  /** The temp folder holding the skill copy (`report-writer/`) and its workspace. */
  root: string;
  skillDir: string;
  home: string;
  llm: LlmServer;
  eval(args: string[], extraEnv?: Record<string, string>): Promise<CliResult>;
}

async function copyDir(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    const source = join(from, entry.name);
    if (entry.isDirectory) await copyDir(source, join(to, entry.name));
    else await Deno.copyFile(source, join(to, entry.name));
  }
}

/** Runs `fn` with the fixture skill in a temp folder and the scripted model (`format`). */
export async function withEvalFixture(
  fn: (f: EvalFixture) => Promise<void>,
  format: "openai" | "anthropic" = "openai",
): Promise<void> {
  await using dir = await tempDir("skills-eval-test-");
  const skillDir = join(dir.path, "report-writer");
  await copyDir(EVAL_SKILL_FIXTURE, skillDir);
  const home = join(dir.path, "home");
  await Deno.mkdir(home);
  const llm = await startLlmServer([], { respond: evalModel });
  const model: Record<string, string> = format === "openai"
    ? { SKILLS_MODEL: "openai:gpt-eval", OPENAI_API_KEY: SECRET_KEY }
    : { SKILLS_MODEL: "anthropic:claude-eval", ANTHROPIC_API_KEY: SECRET_KEY };
  try {
    await fn({
      root: dir.path,
      skillDir,
      home,
      llm,
      eval: (args, extraEnv = {}) =>
        runCli(["eval", ...args], {
          cwd: dir.path,
          env: {
            SKILLS_HOME: home,
            SKILLS_BASE_URL: llm.baseUrl,
            ...model,
            ...extraEnv,
          },
        }),
    });
  } finally {
    await llm.close();
  }
}

/** Every file under `dir`, by path relative to it, with its text. */
export async function filesUnder(dir: string, base = dir, into = new Map<string, string>()) {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) await filesUnder(path, base, into);
    else if (entry.isFile) into.set(path.slice(base.length + 1), await Deno.readTextFile(path));
  }
  return into;
}

/** A JSON file the eval wrote, parsed. */
// deno-lint-ignore no-explicit-any
export async function readJson(path: string): Promise<any> {
  return JSON.parse(await Deno.readTextFile(path));
}
