/**
 * `skills chat`: a model that uses the active skills through the tool surface — an
 * interactive REPL, or one-shot with `-p` (plus `--json` for CI).
 */

import { SkillError, UsageError } from "../../core/errors.ts";
import type { Context } from "../../core/io.ts";
import { debug, warn } from "../../core/io.ts";
import { ChatLoop, DEFAULT_MAX_STEPS, type TurnResult } from "../../agent/chat/chat_loop.ts";
import {
  createLanguageModel,
  type ProviderConfig,
  recordingFetch,
  resolveProviderConfig,
  routeSdkWarnings,
} from "../../agent/chat/providers.ts";
import { Repl, terminalObserver } from "../../agent/chat/repl.ts";
import { redactSecrets } from "../../agent/chat/provider_errors.ts";
import { surfaceFactory, workspaceDir } from "../../agent/library/surface_factory.ts";
import type { ApplyPlan } from "../../runtime/workspace/apply.ts";
import { askToApply } from "../ui/workspace_ui.ts";
import { watchSession } from "../../agent/surface/catalog_watch.ts";
import { chatSpec } from "../specs/chat.ts";
import { writeError, writeJson } from "../ui/render.ts";
import { surfaceOptions } from "../session.ts";
import { openSession } from "../../runtime/catalog/catalog_session.ts";
import { defineCommand, type OptionsOf } from "../args.ts";
import { resolveSandbox } from "../../runtime/sandbox/mode.ts";
import { modelCanInvoke } from "../../agent/surface/invocation.ts";

export const handlesInterrupt = true;

export const { help, parse } = defineCommand(chatSpec, ({ values, positionals, common }) => {
  if (positionals.length > 0) {
    throw new UsageError(
      `Unexpected argument '${positionals[0]}'`,
      'To send a message without the REPL use -p "message"; run `skills chat --help` for usage',
    );
  }
  const prompt = values.prompt;
  if (prompt !== undefined && prompt.trim() === "") {
    throw new UsageError("The prompt given with -p is empty", 'Pass a message: -p "..."');
  }
  if (common.json && prompt === undefined) {
    throw new UsageError("--json needs -p/--prompt", 'Use: skills chat -p "message" --json');
  }
  return {
    ...common,
    ...surfaceOptions(values),
    prompt,
    maxSteps: values["max-steps"] ?? DEFAULT_MAX_STEPS,
    /** `--review`: each script's diff shown and asked about before it is applied. */
    review: values.review === true,
  };
});

type ChatOptions = OptionsOf<typeof parse>;

export async function run(options: ChatOptions, ctx: Context): Promise<number> {
  const config = resolveProviderConfig(ctx.env);
  const session = await openSession(ctx, options.skills);
  for (const warning of session.activationWarnings) warn(ctx, warning);
  // Whether scripts will run in the OS sandbox, said now: not in the middle of a tool line.
  await resolveSandbox(ctx.env, session.home, (message) => warn(ctx, message));
  routeSdkWarnings(ctx.verbose ? (message) => debug(ctx, message) : undefined);
  // A long chat sees skills added, updated, trusted or removed meanwhile (before each step).
  const watch = watchSession(ctx, session, options.skills, (message) => warn(ctx, message));
  watch.start();
  const openSurface = surfaceFactory({
    home: session.home,
    catalog: session.catalog,
    catalogWatch: watch,
    allowUntrusted: session.allowUntrusted,
    env: ctx.env,
    cwd: workspaceDir(ctx.cwd, options.workspace),
    ...(options.review ? { reviewWorkspace: (plan: ApplyPlan) => askToApply(ctx, plan) } : {}),
    // the surface's log carries runner/toolset debug lines (argv, durations, problems)
    log: (message) => debug(ctx, message),
  });
  const fetch = recordingFetch((request) =>
    debug(
      ctx,
      `POST ${redactSecrets(request.url, [config.apiKey])} (${
        JSON.stringify(request.body ?? "").length
      } bytes)`,
    )
  );
  const loop = new ChatLoop({
    model: createLanguageModel(config, fetch),
    provider: config,
    surface: await openSurface(session.active),
    maxSteps: options.maxSteps,
    // --json prints one document at the end, so nothing is gained by streaming
    stream: !options.json,
  });
  try {
    if (options.prompt !== undefined) return await oneShot(options, options.prompt, loop, ctx);
    const skills = session.catalog.skills
      .filter((s) => session.active.has(s.canonical))
      .map((s) => ({
        name: s.canonical,
        description: s.manifest.description,
        userOnly: !modelCanInvoke(s),
      }));
    const repl = new Repl({
      loop,
      io: ctx,
      skills,
      openSurface: () => openSurface(session.active),
      measure: async () => {
        const { measureConversation } = await import("../../agent/chat/accounting.ts");
        return await measureConversation(config, loop.surface, loop.messages);
      },
      onInterrupt: ctx.onInterrupt ?? fallbackInterrupts(ctx),
      inactive: session.catalog.skills.map((s) => s.canonical)
        .filter((name) => !session.active.has(name)),
      banner: banner(config, skills.map((s) => s.name), session.catalog.skills.length) +
        scopeLine(session.catalog.skills, skills.map((s) => s.name)),
    });
    return await repl.run();
  } finally {
    watch.stop();
    await loop.surface.close();
  }
}

/** Where each active skill comes from (project, user, bundled), under the banner. */
function scopeLine(
  catalog: readonly { canonical: string; scope: string }[],
  names: readonly string[],
): string {
  if (names.length === 0) return "";
  const scope = (name: string) => catalog.find((s) => s.canonical === name)?.scope ?? "?";
  return `scopes: ${names.map((n) => `${n} (${scope(n)})`).join(", ")}\n`;
}

/**
 * The first line of a session; with nothing active, how to activate what is installed (a
 * `/<skill>` of an inactive one cannot start it).
 */
function banner(config: ProviderConfig, skills: string[], installed = 0): string {
  const active = skills.length === 0 ? "no active skills" : `skills: ${skills.join(", ")}`;
  const line = `skills chat — ${config.label}, ${active}. /help for commands, Ctrl-D to exit.\n`;
  if (skills.length > 0 || installed === 0) return line;
  return line +
    `${installed} skill${installed === 1 ? " is" : "s are"} available but none is active: ` +
    "restart with --skills a,b (or AGENT_SKILLS=a,b; all for every trusted one); " +
    "`skills list` names them.\n";
}

/** Without `ctx.onInterrupt`, the context's one-shot signal still cancels one turn. */
function fallbackInterrupts(ctx: Context) {
  return (listener: () => void) => {
    ctx.signal.addEventListener("abort", listener, { once: true });
    return () => ctx.signal.removeEventListener("abort", listener);
  };
}

async function oneShot(
  options: ChatOptions,
  prompt: string,
  loop: ChatLoop,
  ctx: Context,
): Promise<number> {
  const printer = terminalObserver({
    // with --json stdout carries only the document; tool lines still go to stderr
    stdout: options.json ? { write: () => {}, writeBytes: () => {} } : ctx.stdout,
    stderr: ctx.stderr,
    color: ctx.color,
  });
  let result: TurnResult;
  try {
    result = await loop.runTurn(prompt, { signal: ctx.signal, observer: printer });
  } catch (error) {
    if (printer.openLine()) ctx.stdout.write("\n");
    printer.closeToolLine("cancelled");
    throw error;
  }
  const unfinished = result.finish === "max_steps";
  const failure = new SkillError(
    "execution_failed",
    `No final answer after ${result.steps} model requests (--max-steps ${options.maxSteps})`,
    { hint: "Raise --max-steps, or make the request more specific" },
  );
  if (options.json) {
    writeJson(ctx, {
      success: !unfinished,
      model: loop.provider.label,
      answer: result.answer,
      tool_calls: result.toolCalls.map((c) => ({
        name: c.name,
        arguments: c.arguments,
        result: c.result,
        duration_ms: c.duration_ms,
      })),
      usage: result.usage,
      steps: result.steps,
      finish: result.finish,
      ...(unfinished ? { error: failure.code, message: failure.message } : {}),
    });
  } else if (printer.openLine()) {
    ctx.stdout.write("\n");
  }
  if (unfinished) {
    writeError(ctx, failure.message, failure.hint);
    return failure.exitCode;
  }
  return 0;
}
