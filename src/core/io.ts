/**
 * The narrow context every command receives instead of `Deno` (DESIGN §4.2): tests build
 * one with captured output; `main.ts` builds the real one.
 */

export interface Output {
  write(text: string): void;
  writeBytes(bytes: Uint8Array): void;
}

export interface Context {
  /** The effective environment: `.env` in cwd merged under the real environment. */
  env: Record<string, string>;
  cwd: string;
  stdout: Output;
  stderr: Output;
  /** Whether stdin and stderr are terminals (prompts are allowed). */
  isTty: boolean;
  /** Whether stdout is a terminal (tables, colour). */
  stdoutIsTty: boolean;
  /** Aborted on Ctrl-C. */
  signal: AbortSignal;
  verbose: boolean;
  color: boolean;
  /** Reads one line from stdin (without the newline); null at end of input. */
  readLine(): Promise<string | null>;
  /**
   * stdin when it is not a terminal (a pipe, a file, /dev/null), for a command that hands it
   * on (`skills run` to its script); undefined on a terminal or in tests.
   */
  pipedStdin?: () => StdinReader | undefined;
  /**
   * Commands with `handlesInterrupt` may take Ctrl-C over: while at least one listener is
   * subscribed, Ctrl-C calls the listeners instead of aborting `signal` (a REPL cancels
   * the current turn and keeps running). Returns the unsubscribe function.
   */
  onInterrupt?: (listener: () => void) => () => void;
}

/**
 * A stdin handed on, read by its own calls (Deno.stdin is one): into `p`, the bytes read, or
 * null at its end.
 */
export interface StdinReader {
  read(p: Uint8Array): Promise<number | null>;
}

/** Writes debug lines to stderr when `--verbose` is on. */
export function debug(ctx: Pick<Context, "verbose" | "stderr">, message: string): void {
  if (ctx.verbose) ctx.stderr.write(`debug: ${message}\n`);
}

export function warn(ctx: Pick<Context, "stderr" | "color">, message: string): void {
  ctx.stderr.write(`${ctx.color ? "\x1b[33mwarning\x1b[0m" : "warning"}: ${message}\n`);
}

/** An Output that collects everything, for tests and for `--json` buffering. */
export function memoryOutput(): Output & { text(): string; bytes(): Uint8Array } {
  const chunks: Uint8Array[] = [];
  const encoder = new TextEncoder();
  const all = () => {
    const size = chunks.reduce((n, c) => n + c.length, 0);
    const out = new Uint8Array(size);
    let offset = 0;
    for (const c of chunks) {
      out.set(c, offset);
      offset += c.length;
    }
    return out;
  };
  return {
    write: (text) => void chunks.push(encoder.encode(text)),
    writeBytes: (bytes) => void chunks.push(bytes.slice()),
    text: () => new TextDecoder().decode(all()),
    bytes: all,
  };
}

/**
 * Whether to colour stderr: on a terminal, unless `--no-color` or a non-empty `NO_COLOR`
 * (no-color.org: an empty value does not count).
 */
export function colorWanted(
  env: Readonly<Record<string, string>>,
  argv: readonly string[],
  terminal: boolean,
): boolean {
  return terminal && !env.NO_COLOR && !argv.includes("--no-color");
}
