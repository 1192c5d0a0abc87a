/**
 * A process in a real pseudo-terminal, through util-linux `script` (its `-qfec` flags are
 * Linux's: tests using this declare `ignore: Deno.build.os !== "linux"`). The terminal's
 * output (stdout and stderr merged) is collected as it arrives.
 */

import { baseEnv } from "./cli.ts";
import { waitFor } from "./wait.ts";

function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

export class PtySession {
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #reading: Promise<void>;
  output = "";

  /** Starts `argv` in a terminal, with `baseEnv(env)` plus TERM=dumb, in `cwd`. */
  constructor(argv: string[], env: Record<string, string>, cwd: string) {
    const child = new Deno.Command("script", {
      // `exec`: the shell must not stay in the terminal's process group and catch Ctrl-C
      args: ["-qfec", `exec ${argv.map(shellQuote).join(" ")}`, "/dev/null"],
      cwd,
      env: baseEnv({ ...env, TERM: "dumb" }),
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#child = child;
    this.#writer = child.stdin.getWriter();
    this.#reading = (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of child.stdout) {
        this.output += decoder.decode(chunk, { stream: true });
      }
    })();
    void child.stderr.cancel();
  }

  async type(text: string): Promise<void> {
    await this.#writer.write(new TextEncoder().encode(text));
  }

  /**
   * Waits until the output after `from` matches, and returns where the match ends; fails
   * after `timeoutMs` showing the output so far.
   */
  waitFor(pattern: RegExp, from = 0, timeoutMs = 20_000): Promise<number> {
    return waitFor(() => {
      const match = pattern.exec(this.output.slice(from));
      return match ? from + match.index + match[0].length : null;
    }, {
      what: String(pattern),
      timeoutMs,
      detail: () => `output so far:\n${this.output}`,
    });
  }

  /** Ends the input (the terminal sees end of file) and waits for the process to exit. */
  async close(): Promise<Deno.CommandStatus> {
    await this.#writer.close().catch(() => {});
    const status = await this.#child.status;
    await this.#reading;
    return status;
  }

  kill(): void {
    try {
      this.#child.kill("SIGKILL");
    } catch {
      // already exited
    }
  }
}
