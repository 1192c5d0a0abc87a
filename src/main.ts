/**
 * Entry point: argv → command. The ONLY place that calls Deno.exit (DESIGN §2).
 */

import { COMMANDS } from "./cli/commands.ts";
import { exitCodeFor, isSkillError, SkillError } from "./core/errors.ts";
import { mergeEnv, parseDotenv } from "./core/dotenv.ts";
import { VERSION } from "./core/version.ts";
import type { Context, Output } from "./core/io.ts";
import { stdinLineReader } from "./cli/tty.ts";

function denoOutput(stream: { writeSync(p: Uint8Array): number }): Output {
  const encoder = new TextEncoder();
  const writeBytes = (bytes: Uint8Array) => {
    let offset = 0;
    while (offset < bytes.length) {
      try {
        offset += stream.writeSync(bytes.subarray(offset));
      } catch (error) {
        if (error instanceof Deno.errors.BrokenPipe) return; // reader went away (`| head`)
        throw error;
      }
    }
  };
  return { write: (text) => writeBytes(encoder.encode(text)), writeBytes };
}

function loadEnv(cwd: string): Record<string, string> {
  const real = Deno.env.toObject();
  try {
    return mergeEnv(real, parseDotenv(Deno.readTextFileSync(`${cwd}/.env`)));
  } catch {
    return real;
  }
}

export function topLevelHelp(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  const lines = Object.entries(COMMANDS).map(([name, c]) =>
    `  ${name.padEnd(width)}  ${c.summary}`
  );
  return `skills ${VERSION} — install, run and serve Agent Skills

Usage: skills <command> [options]

Commands:
${lines.join("\n")}

Global options:
  -h, --help      Show help (also: skills <command> --help)
  -V, --version   Print the version
  --json          Machine-readable output on stdout
  -v, --verbose   Debug logs on stderr
  --no-color      Disable colour (NO_COLOR is honoured too)

Environment: SKILLS_HOME (default ~/.agent/skills), AGENT_SKILLS (active skills:
a,b | all | all-untrusted | none). A .env file in the working directory is read.

Exit codes: 0 ok, 1 failure, 2 usage error, 124 timeout, 130 interrupted;
\`skills run\` passes the script's own exit code through.
`;
}

function suggest(name: string): string {
  const close = Object.keys(COMMANDS).filter((c) => c.startsWith(name.slice(0, 2)));
  return close.length > 0
    ? `Did you mean ${close.map((c) => `\`skills ${c}\``).join(" or ")}?`
    : "Run `skills --help` to see the commands";
}

export async function main(argv: string[]): Promise<number> {
  const stdout = denoOutput(Deno.stdout);
  const stderr = denoOutput(Deno.stderr);
  const first = argv[0];
  if (first === undefined || first === "-h" || first === "--help" || first === "help") {
    if (first === "help" && argv[1] !== undefined && COMMANDS[argv[1]]) {
      stdout.write((await COMMANDS[argv[1]]!.load()).help);
      return 0;
    }
    (first === undefined ? stderr : stdout).write(topLevelHelp());
    return first === undefined ? exitCodeFor("usage") : 0;
  }
  if (first === "-V" || first === "--version") {
    stdout.write(`skills ${VERSION}\n`);
    return 0;
  }
  const wantsJson = argv.slice(0, argv.includes("--") ? argv.indexOf("--") : undefined).includes(
    "--json",
  );
  const cwd = Deno.cwd();
  const env = loadEnv(cwd);
  const color = !("NO_COLOR" in env) && !argv.includes("--no-color") && Deno.stderr.isTerminal();
  const controller = new AbortController();
  const ctx: Context = {
    env,
    cwd,
    stdout,
    stderr,
    isTty: Deno.stdin.isTerminal() && Deno.stderr.isTerminal(),
    stdoutIsTty: Deno.stdout.isTerminal(),
    signal: controller.signal,
    verbose: false, // set from the parsed options below
    color,
    readLine: stdinLineReader(),
  };
  try {
    const entry = COMMANDS[first];
    if (entry === undefined) {
      throw new SkillError("usage", `Unknown command '${first}'`, { hint: suggest(first) });
    }
    const module = await entry.load();
    const options = module.parse(argv.slice(1));
    if (options.help) {
      stdout.write(module.help);
      return 0;
    }
    ctx.verbose = options.verbose || env.SKILLS_DEBUG === "1";
    if (module.handlesInterrupt) installInterruptHandling(ctx, controller);
    return await module.run(options, ctx);
  } catch (error) {
    return reportError(error, ctx, wantsJson);
  }
}

/** Seconds a command gets to clean up (kill a script's process tree, roll back) before a
 * repeated Ctrl-C forces the exit. */
const FORCE_EXIT_GRACE_MS = 1500;

/**
 * Ctrl-C (and SIGTERM/SIGHUP) abort `ctx.signal`, or go to the command's own listeners
 * (the REPL cancels a turn and keeps running). A second Ctrl-C after the grace period
 * forces the exit, so a stuck cleanup can always be escaped.
 */
function installInterruptHandling(ctx: Context, controller: AbortController): void {
  let firstAt = 0;
  const listeners = new Set<() => void>();
  ctx.onInterrupt = (listener) => {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  };
  /** `cancelled` exits 130 (the exit table); other signals pass their own status. */
  const abort = (what: string, exitCode?: number) => {
    controller.abort(new SkillError("cancelled", what, exitCode === undefined ? {} : { exitCode }));
  };
  Deno.addSignalListener("SIGINT", () => {
    if (listeners.size > 0) {
      for (const listener of [...listeners]) listener();
      return;
    }
    if (firstAt === 0) {
      firstAt = Date.now();
      abort("Interrupted");
    } else if (Date.now() - firstAt > FORCE_EXIT_GRACE_MS) {
      Deno.exit(exitCodeFor("cancelled"));
    }
  });
  if (Deno.build.os !== "windows") {
    Deno.addSignalListener("SIGTERM", () => abort("Terminated", 143));
    Deno.addSignalListener("SIGHUP", () => abort("Hang-up", 129));
  }
}

function reportError(error: unknown, ctx: Context, json: boolean): number {
  const skillError = isSkillError(error) ? error : new SkillError(
    "execution_failed",
    `Unexpected error: ${(error as Error)?.stack ?? String(error)}`,
  );
  if (json) {
    const message = skillError.hint
      ? `${skillError.message}\n${skillError.hint}`
      : skillError.message;
    ctx.stdout.write(
      `${JSON.stringify({ success: false, error: skillError.code, message }, null, 2)}\n`,
    );
  }
  const red = ctx.color ? "\x1b[31merror\x1b[0m" : "error";
  ctx.stderr.write(`${red}: ${skillError.message}\n`);
  if (skillError.hint) ctx.stderr.write(`hint: ${skillError.hint}\n`);
  return skillError.exitCode;
}

if (import.meta.main) {
  const code = await main(Deno.args);
  Deno.exit(code);
}
