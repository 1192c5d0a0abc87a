/**
 * The socket tables (/proc/net/tcp and tcp6, one after the other) for `skills mcp --http`'s
 * fair shares (http_limits.ts), read by one python3 that lives as long as the server: Deno lets
 * a program read /proc only with every permission, which the binary does not have. Started
 * once (isolated, from `/`, with an empty environment) and asked for each read, it costs a
 * session a line on a pipe instead of a process of its own — a client opening sessions by the
 * hundred no longer makes the server start a hundred processes. It ends with the server: its
 * stdin closes then.
 */

/** The reader: answers each line on stdin with the tables' length in bytes, a newline, then the tables. */
const READER = `import sys
out = sys.stdout.buffer
while sys.stdin.buffer.readline():
    tables = b""
    for t in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(t, "rb") as f:
                tables += f.read()
        except OSError:
            pass
    out.write(b"%d\\n" % len(tables) + tables)
    out.flush()
`;

/** A read that takes longer than this gives up (and the reader is started again next time). */
const READ_TIMEOUT_MS = 5_000;

/** One long-lived reader process; reads must not overlap (sharedFreshReads serialises them). */
export class SocketTableReader {
  #child?: Deno.ChildProcess;
  #writer?: WritableStreamDefaultWriter<Uint8Array>;
  #reader?: ReadableStreamDefaultReader<Uint8Array>;
  #pending = new Uint8Array(0);
  #started = 0;

  constructor(readonly python: string, readonly timeoutMs = READ_TIMEOUT_MS) {}

  /** How many reader processes were started (one, unless one failed). */
  get started(): number {
    return this.#started;
  }

  /** The tables' text, or "" when they cannot be read (no python3, or it failed). */
  async read(): Promise<string> {
    try {
      return await this.#ask();
    } catch {
      this.close();
      return "";
    }
  }

  /** Ends the reader process (its stdin closes); a later read starts another. */
  close(): void {
    this.#writer?.close().catch(() => {});
    this.#reader?.cancel().catch(() => {});
    try {
      this.#child?.kill("SIGKILL");
    } catch { /* already gone */ }
    this.#child = this.#writer = this.#reader = undefined;
    this.#pending = new Uint8Array(0);
  }

  async #ask(): Promise<string> {
    if (this.#child === undefined) this.#start();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("socket tables: no answer")), this.timeoutMs);
    });
    try {
      await this.#writer!.write(new Uint8Array([10]));
      return await Promise.race([this.#answer(), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  #start(): void {
    const child = new Deno.Command(this.python, {
      args: ["-I", "-S", "-c", READER],
      cwd: "/",
      clearEnv: true,
      env: { LC_ALL: "C" },
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    // Neither the process nor its pipes keep the server alive: it exits when its stdin closes.
    child.unref();
    this.#started++;
    this.#child = child;
    this.#writer = child.stdin.getWriter();
    this.#reader = child.stdout.getReader();
  }

  /** Reads one answer: a decimal length, a newline, then that many bytes. */
  async #answer(): Promise<string> {
    let newline = this.#pending.indexOf(10);
    while (newline < 0) {
      await this.#more();
      newline = this.#pending.indexOf(10);
    }
    const length = Number(new TextDecoder().decode(this.#pending.subarray(0, newline)));
    if (!Number.isSafeInteger(length) || length < 0) throw new Error("socket tables: bad answer");
    const end = newline + 1 + length;
    while (this.#pending.length < end) await this.#more();
    const text = new TextDecoder().decode(this.#pending.subarray(newline + 1, end));
    this.#pending = this.#pending.slice(end);
    return text;
  }

  async #more(): Promise<void> {
    const { value, done } = await this.#reader!.read();
    if (done) throw new Error("socket tables: the reader ended");
    const joined = new Uint8Array(this.#pending.length + value.length);
    joined.set(this.#pending);
    joined.set(value, this.#pending.length);
    this.#pending = joined;
  }
}
