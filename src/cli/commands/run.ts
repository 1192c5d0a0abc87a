/**
 * `skills run [--timeout S] [--env NAME[=VALUE]]... [--allow-net HOST[:PORT]]... <skill>
 * <script> [script args...]`:
 * runs one skill script in the sandbox. Everything after <script> goes to the script.
 */

import { type Envelope, failFromError } from "../../core/envelope.ts";
import {
  EXIT_FAILURE,
  EXIT_INTERRUPTED,
  EXIT_TIMEOUT,
  EXIT_USAGE,
  isSkillError,
  SkillError,
  UsageError,
} from "../../core/errors.ts";
import { type Context, debug, warn } from "../../core/io.ts";
import { skillsHome } from "../../runtime/store/home.ts";
import { formatSeconds } from "../../runtime/exec/runner.ts";
import {
  executeRun,
  HELP_RUN,
  offlineTimeoutNote,
  outcomeEnvelope,
  type PreparedRun,
  type ScriptDeps,
} from "../../runtime/exec/prepared_run.ts";
import { runPreparation } from "../../runtime/exec/run_preparation.ts";
import { defineCommand, type OptionsOf } from "../args.ts";
import { runSpec } from "../specs/run.ts";
import { writeError, writeHint, writeJson } from "../ui/render.ts";
import { receiptIsNotable, receiptLine } from "../../runtime/exec/receipt.ts";
import { resolve } from "../../runtime/os/paths.ts";
import type { ApplyPlan } from "../../runtime/workspace/apply.ts";

const HINT = "Run `skills run --help` for usage";

/**
 * Pure: options before <skill> belong to `skills run`, everything after <script> to the
 * script. `--timeout`, `--env` and `--allow-net` are parsed by their spec's value parsers.
 */
export const { help, parse } = defineCommand(runSpec, ({ values, positionals, rest, common }) => {
  const options = {
    ...common,
    skill: "",
    script: "",
    /** Arguments for the script, as given. */
    args: [] as string[],
    timeoutSeconds: values.timeout,
    /** `--env` requests: `NAME` or `NAME=VALUE`. */
    env: values.env ?? [],
    /** `--allow-net` grants: `HOST` or `HOST:PORT`. */
    allowNet: values["allow-net"] ?? [],
    /** `--help` among the script's arguments. */
    scriptHelp: false,
    /** `--read-only`: the workspace stays read-only. */
    readOnly: values["read-only"] === true,
    /** `--write PATH` grants. */
    write: values.write ?? [],
    /** `--review`: the workspace's diff shown and asked about before it is applied. */
    review: values.review === true,
    /** `--background`: started as a service (runtime/services). */
    background: values.background === true,
    idleSeconds: values["idle-timeout"],
    maxSeconds: values["max-lifetime"],
  };
  if (options.help) return options;
  const [skill, script] = positionals;
  if (skill === undefined) throw new UsageError("Missing skill name", HINT);
  if (script === undefined) {
    throw new UsageError(
      "Missing script name",
      `Run \`skills scripts ${skill}\` to see the skill's scripts`,
    );
  }
  if (options.background && options.review) {
    throw new UsageError(
      "--review cannot be used with --background",
      "A service's diff is applied when it stops; run it in the foreground to review",
    );
  }
  if (!options.background && (options.idleSeconds ?? options.maxSeconds) !== undefined) {
    throw new UsageError("--idle-timeout and --max-lifetime need --background", HINT);
  }
  options.skill = skill;
  options.script = script;
  const read = scriptArguments(rest);
  options.args = read.args;
  if (read.json) options.json = true;
  options.scriptHelp = read.help;
  return options;
});

/**
 * What `skills run` reads among the script's arguments, which all go to the script: a bare
 * `--json` (last, or followed by another option) selects JSON mode, while `--json VALUE` is
 * the script's own option (Trail of Bits' `collect.py nodeapp --json out/findings.json`);
 * `--help` asks for the script's help. After a `--` (which is not passed on) nothing is
 * read: everything there is the script's, as typed.
 */
function scriptArguments(
  rest: readonly string[],
): { args: string[]; json: boolean; help: boolean } {
  const end = rest.indexOf("--");
  const read = end === -1 ? rest : rest.slice(0, end);
  const args = end === -1 ? [...rest] : [...read, ...rest.slice(end + 1)];
  const json = read.some((arg, i) =>
    arg === "--json" && (i === read.length - 1 || read[i + 1]!.startsWith("-"))
  );
  return { args, json, help: read.includes("--help") };
}

export type RunOptions = OptionsOf<typeof parse>;

/** The exit code for a failure envelope: the script's own, 124, 130, 2 or 1. */
export function exitCodeFor(envelope: Envelope): number {
  if (envelope.success) return 0;
  switch (envelope.error) {
    case "timeout":
      return EXIT_TIMEOUT;
    case "cancelled":
      return EXIT_INTERRUPTED;
    case "invalid_name":
    case "args_too_large":
    case "usage":
      return EXIT_USAGE;
    case "execution_failed": {
      const code = envelope.details?.exit_code;
      return typeof code === "number" && code > 0 && code < 256 ? code : EXIT_FAILURE;
    }
    default:
      return EXIT_FAILURE;
  }
}

export const handlesInterrupt = true;

export async function run(options: RunOptions, ctx: Context): Promise<number> {
  const startedAt = Date.now();
  const home = skillsHome(ctx.env, ctx.cwd);
  if (options.background) return await runInBackground(options, ctx, home);
  const deps = scriptDeps(options, ctx, home);
  const { prepare, scriptHelp } = await runPreparation({
    skill: options.skill,
    script: options.script,
    args: options.args,
    scriptHelp: options.json && options.scriptHelp,
    startedAt,
  }, deps);
  const passStderr = (chunk: Uint8Array) => ctx.stderr.writeBytes(chunk);
  if (options.json) {
    if (options.scriptHelp) {
      const envelope = await scriptHelp();
      return finishJson(ctx, envelope, envelope.success ? envelope.result : undefined);
    }
    let envelope: Envelope;
    let raw: string | undefined;
    try {
      const prepared = await prepare();
      const outcome = await executeRun(prepared, true, deps, { stderr: passStderr });
      envelope = outcomeEnvelope(prepared, outcome, true);
      raw = outcome.stdout;
      // As in text mode: after a run that changed files or used the network (or --verbose).
      if (outcome.receipt && (options.verbose || receiptIsNotable(outcome.receipt))) {
        ctx.stderr.write(`receipt: ${JSON.stringify(outcome.receipt)}\n`);
      }
    } catch (error) {
      return finishJson(ctx, failFromError(error), undefined, error);
    }
    return finishJson(ctx, envelope, raw);
  }

  const prepared = await prepare();
  const outcome = await executeRun(prepared, false, deps, {
    stdout: (chunk) => ctx.stdout.writeBytes(chunk),
    stderr: passStderr,
  });
  const receipt = outcome.receipt;
  if (receipt && (options.verbose || receiptIsNotable(receipt))) {
    ctx.stderr.write(`${receiptLine(receipt)}\n`);
  }
  switch (outcome.error) {
    case null:
      if (outcome.truncated) {
        warn(
          ctx,
          `Output of '${prepared.script.name}' truncated at ${outcome.limits.maxOutputBytes} bytes; the script was stopped`,
        );
        ctx.stderr.write(
          "hint: Raise the cap with MAX_SCRIPT_OUTPUT or the skill's limits.max_output\n",
        );
        return EXIT_FAILURE;
      }
      return 0;
    case "timeout":
      throw new SkillError(
        "timeout",
        `Script '${prepared.script.name}' timed out after ${
          formatSeconds(outcome.limits.timeoutSeconds)
        }`,
        { exitCode: EXIT_TIMEOUT, hint: timeoutHint(prepared) },
      );
    case "cancelled":
      throw new SkillError("cancelled", "Interrupted", { exitCode: EXIT_INTERRUPTED });
    case "execution_failed": {
      debug(ctx, `script exited with code ${outcome.exitCode}`);
      const envelope = outcomeEnvelope(prepared, outcome, false);
      const hint = envelope.success ? undefined : envelope.details?.hint;
      if (typeof hint === "string") writeHint(ctx, hint);
      return exitCodeFor(envelope);
    }
    case "parse_error":
      return EXIT_FAILURE; // not reached outside JSON mode
  }
}

/** What the run needs of the command: its options and context, as the runtime takes them. */
function scriptDeps(options: RunOptions, ctx: Context, home: string): ScriptDeps & { cwd: string } {
  return {
    home,
    env: ctx.env,
    signal: ctx.signal,
    log: (message) => debug(ctx, message),
    extraEnv: options.env,
    timeoutSeconds: options.timeoutSeconds,
    cwd: ctx.cwd,
    readOnly: options.readOnly,
    write: options.write.map((path) => resolve(ctx.cwd, path)),
    allowNet: options.allowNet,
    warn: (message) => warn(ctx, message),
    // The question's module loads only under --review.
    review: options.review
      ? async (plan: ApplyPlan) => (await import("../ui/workspace_ui.ts")).askToApply(ctx, plan)
      : undefined,
    // Asking for the script's help changes nothing, whatever the script does with --help.
    discard: options.scriptHelp ? HELP_RUN : undefined,
    // A pipe or a file is the script's to read; a terminal is never read (its stdin closed).
    // Under --review stdin answers the question after the run, so the script gets none.
    stdin: options.scriptHelp || options.review ? undefined : ctx.pipedStdin?.(),
  };
}

/**
 * JSON mode output: exactly one document on stdout (the script's own JSON on success, the
 * envelope on failure) and a one-line error (plus hint) on stderr.
 */
function finishJson(
  ctx: Context,
  envelope: Envelope,
  success: unknown,
  error?: unknown,
): number {
  if (envelope.success) {
    if (typeof success === "string") {
      ctx.stdout.write(success.endsWith("\n") ? success : `${success}\n`);
    } else writeJson(ctx, success ?? envelope.result);
    return 0;
  }
  // The receipt went to stderr already: stdout keeps the envelope's documented shape.
  const { receipt: _receipt, ...shown } = envelope;
  writeJson(ctx, shown);
  let message = isSkillError(error) ? error.message : envelope.message.split("\n")[0];
  const output = envelope.details?.output;
  if (output !== null && typeof output === "object" && "error" in output) {
    message += `: ${String((output as { error: unknown }).error)}`;
  }
  // The message carries the script's own `error` field: writeError shows it inert.
  const hint = isSkillError(error) ? error.hint : envelope.details?.hint;
  writeError(ctx, message ?? "", typeof hint === "string" ? hint : undefined);
  return isSkillError(error) ? error.exitCode : exitCodeFor(envelope);
}

/**
 * `--background`: the script started as a service (runtime/services/start.ts); once it is up,
 * what it printed so far, then its id and each URL on the host (stdout: the agent reads them),
 * or one JSON document with `--json`.
 */
async function runInBackground(options: RunOptions, ctx: Context, home: string): Promise<number> {
  const { serviceLimits, startService } = await import("../../runtime/services/start.ts");
  const started = await startService({
    skill: options.skill,
    script: options.script,
    args: options.args,
    cwd: ctx.cwd,
    env: options.env,
    allowNet: options.allowNet,
    write: options.write.map((path) => resolve(ctx.cwd, path)),
    readOnly: options.readOnly,
    ...serviceLimits(ctx.env, options),
  }, { home, env: ctx.env });
  const { state, urls, output } = started;
  if (state.declared === false) {
    warn(
      ctx,
      `'${state.script}' is not declared a service by ${state.skill} (permissions.services): it keeps running because you asked`,
    );
  }
  if (options.json) {
    writeJson(ctx, {
      id: state.id,
      skill: state.skill,
      script: state.script,
      ports: state.ports,
      urls,
      output,
      live: state.live,
      idle_seconds: state.idle_seconds,
      max_seconds: state.max_seconds,
    });
    return 0;
  }
  if (output !== "") ctx.stdout.write(output.endsWith("\n") ? output : `${output}\n`);
  ctx.stdout.write(`service ${state.id} running: ${state.skill} ${state.script}\n`);
  for (const url of urls) ctx.stdout.write(`  ${url}\n`);
  if (!started.listening) ctx.stdout.write("  (no port yet: skills ps shows it once it listens)\n");
  ctx.stderr.write(
    `hint: skills logs ${state.id} shows its output; skills stop ${state.id} ends it\n`,
  );
  return 0;
}

/** What to try after a timeout: a longer limit, and a grant when the script had no network. */
function timeoutHint(prepared: PreparedRun): string {
  const raise = "Raise the limit with --timeout S (before the skill's name) or SCRIPT_TIMEOUT";
  const note = offlineTimeoutNote(prepared);
  return note === undefined ? raise : `${raise}. ${note}`;
}
