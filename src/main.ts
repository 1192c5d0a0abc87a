/**
 * Entry point: argv → command. The ONLY place that calls Deno.exit (DESIGN §2).
 */

import { COMMAND_INDEX } from "./cli/command_table/command_index.ts";
import { readInvocation, renderTopLevelHelp } from "./cli/command_table/command_table.ts";
import {
  exitCodeFor,
  isSkillError,
  missingModuleError,
  osError,
  SkillError,
} from "./core/errors.ts";
import { VERSION } from "./core/version.ts";
import { colorWanted, type Context, type Output } from "./core/io.ts";

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

/**
 * The real environment plus what `./.env` may set (core/policy/dotenv.ts: never what runs or
 * where a credential goes). Only a regular file of bounded size is read, so a FIFO or
 * `/dev/zero` named `.env` cannot hang or exhaust a command. Ignored names are said on
 * stderr. The parser loads only when there is a `.env` (most commands start without one).
 */
async function loadEnv(cwd: string, stderr: Output): Promise<Record<string, string>> {
  const real = Deno.env.toObject();
  const path = `${cwd}/.env`;
  let text: string;
  let dotenv: typeof import("./core/policy/dotenv.ts");
  try {
    if (!Deno.statSync(path).isFile) {
      stderr.write(`warning: ignoring ${path}: not a regular file\n`);
      return real;
    }
    dotenv = await import("./core/policy/dotenv.ts");
    const { MAX_DOTENV_BYTES } = dotenv;
    const file = Deno.openSync(path, { read: true });
    try {
      // Checked again on the open file: the name may have been swapped since the stat.
      if (!file.statSync().isFile) return real;
      const buffer = new Uint8Array(MAX_DOTENV_BYTES + 1);
      let filled = 0;
      while (filled < buffer.length) {
        const n = file.readSync(buffer.subarray(filled));
        if (n === null) break;
        filled += n;
      }
      if (filled > MAX_DOTENV_BYTES) {
        stderr.write(`warning: ignoring ${path}: larger than ${MAX_DOTENV_BYTES} bytes\n`);
        return real;
      }
      text = new TextDecoder().decode(buffer.subarray(0, filled));
    } finally {
      file.close();
    }
  } catch {
    return real; // none, or unreadable
  }
  const { env, ignored } = dotenv.applyDotenv(real, dotenv.parseDotenv(text));
  for (const { name, reason } of ignored) {
    stderr.write(`warning: ignoring ${name} from ${path}: ${reason} (see docs/environment.md)\n`);
  }
  return env;
}

/**
 * The directory the user ran the command from. `deno task skills …` runs in the repository
 * root; Deno's task runner (which also sets npm_config_user_agent to `deno/…`) says where
 * the user was in INIT_CWD. Moving there makes `.`, relative paths and `.env` mean what
 * the user meant, exactly as with the installed binary. Only when we were started in this
 * repository's root, as the task does: the variables are inherited by every process a
 * task starts, and a `skills` started elsewhere (by a script, a benchmark, another task's
 * `cd sub && skills …`) means the directory it was started in.
 */
function userDirectory(): string {
  const invokedFrom = Deno.env.get("INIT_CWD");
  const byDenoTask = (Deno.env.get("npm_config_user_agent") ?? "").startsWith("deno/");
  if (invokedFrom && byDenoTask && startedInTaskDirectory()) {
    try {
      if (Deno.statSync(invokedFrom).isDirectory) Deno.chdir(invokedFrom);
    } catch { /* gone or unreadable: stay where we are */ }
  }
  return Deno.cwd();
}

/** Whether the working directory is the root of the checkout this module runs from. */
function startedInTaskDirectory(): boolean {
  const here = new URL("..", import.meta.url);
  if (here.protocol !== "file:") return false;
  try {
    return Deno.realPathSync(here) === Deno.realPathSync(Deno.cwd());
  } catch {
    return false;
  }
}

/**
 * The stdin line reader (cli/ui/tty.ts), loaded at the first line asked for: most commands
 * never read stdin. One reader for the whole process, so unread bytes are kept between calls.
 */
function lazyLineReader(): () => Promise<string | null> {
  let reader: Promise<() => Promise<string | null>> | undefined;
  return async () => {
    reader ??= import("./cli/ui/tty.ts").then((tty) => tty.stdinLineReader());
    return await (await reader)();
  };
}

/** `skills --help`, from the command index (no spec or command module is loaded). */
export function topLevelHelp(): string {
  return renderTopLevelHelp(COMMAND_INDEX, VERSION);
}

export async function main(argv: string[]): Promise<number> {
  // A service's supervisor (runtime/services), started detached by `skills run --background`:
  // not a command a user types, so it is in no spec, help or completion.
  if (argv[0] === "__service" && argv[1] !== undefined) return await superviseService(argv[1]);
  const stdout = denoOutput(Deno.stdout);
  const stderr = denoOutput(Deno.stderr);
  const invocation = readInvocation(argv);
  switch (invocation.kind) {
    case "top-help":
      (invocation.bare ? stderr : stdout).write(topLevelHelp());
      return invocation.bare ? exitCodeFor("usage") : 0;
    case "version":
      stdout.write(`skills ${VERSION}\n`);
      return 0;
    case "command-help":
      stdout.write((await invocation.entry.load()).help);
      return 0;
  }
  // Global options may precede the command: readInvocation moved them after its name, so
  // these scans of the whole argv see the same words either way.
  let wantsJson = argv.slice(0, argv.includes("--") ? argv.indexOf("--") : undefined).includes(
    "--json",
  );
  const cwd = userDirectory();
  const env = await loadEnv(cwd, stderr);
  const color = colorWanted(env, argv, Deno.stderr.isTerminal());
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
    readLine: lazyLineReader(),
    pipedStdin: () => Deno.stdin.isTerminal() ? undefined : Deno.stdin,
  };
  try {
    if (invocation.kind === "unknown") throw invocation.error;
    const module = await invocation.entry.load();
    const options = module.parse(invocation.argv);
    // Parsed, the command decides: `skills run … --json out.json` is the script's option.
    wantsJson = options.json === true;
    if (options.help) {
      stdout.write(module.help);
      return 0;
    }
    ctx.verbose = options.verbose || env.SKILLS_DEBUG === "1";
    if (module.handlesInterrupt) installInterruptHandling(ctx, controller);
    return await module.run(options, ctx);
  } catch (error) {
    return await reportError(error, ctx, wantsJson);
  }
}

async function superviseService(dir: string): Promise<number> {
  const { superviseService } = await import("./runtime/services/supervisor.ts");
  // The folder is `$SKILLS_HOME/.services/<boot id>/<id>`: the home is the one that made it.
  const home = dir.replace(/\/+$/, "").split("/").slice(0, -3).join("/");
  return await superviseService(dir, home, Deno.env.toObject());
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

async function reportError(error: unknown, ctx: Context, json: boolean): Promise<number> {
  const skillError = isSkillError(error)
    ? error
    : osError(error) ?? missingModuleError(error) ?? new SkillError(
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
  // Loaded here: most runs never fail.
  const { writeError } = await import("./cli/ui/render.ts");
  writeError(ctx, skillError.message, skillError.hint);
  return skillError.exitCode;
}

if (import.meta.main) {
  const code = await main(Deno.args);
  Deno.exit(code);
}
