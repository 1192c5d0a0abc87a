/** Terminal helpers: line input from stdin and yes/no confirmation. */

import { SkillError } from "../../core/errors.ts";
import type { Context } from "../../core/io.ts";

/** The longest input line accepted (MCP messages, REPL input, answers). */
const MAX_LINE_BYTES = 4 * 1024 * 1024;

type ReadFn = (buffer: Uint8Array) => Promise<number | null>;

/**
 * A line reader over stdin that keeps unread bytes between calls. Linear in the input: each
 * byte is searched for a newline once and copied at most twice. A line longer than
 * `maxLineBytes` is refused with `args_too_large` as soon as it passes the bound (its rest
 * is then skipped, never kept), and the next call returns the line after it.
 */
export function stdinLineReader(
  maxLineBytes = MAX_LINE_BYTES,
  read: ReadFn = (buffer) => Deno.stdin.read(buffer),
): () => Promise<string | null> {
  const decoder = new TextDecoder();
  /** The current line's bytes so far (before `rest`). */
  let parts: Uint8Array[] = [];
  let partBytes = 0;
  /** Bytes read and not yet consumed, from `offset`. */
  let rest = new Uint8Array(0);
  let offset = 0;
  let ended = false;
  /** Skipping the remainder of a refused line. */
  let skipping = false;

  const take = (end: number): string => {
    const tail = rest.subarray(offset, end);
    let bytes = tail;
    if (parts.length > 0) {
      bytes = new Uint8Array(partBytes + tail.length);
      let at = 0;
      for (const part of parts) {
        bytes.set(part, at);
        at += part.length;
      }
      bytes.set(tail, at);
    }
    parts = [];
    partBytes = 0;
    const line = decoder.decode(bytes);
    return line.endsWith("\r") ? line.slice(0, -1) : line;
  };

  return async () => {
    while (true) {
      const newline = rest.indexOf(10, offset);
      if (newline !== -1) {
        if (skipping) {
          skipping = false;
          offset = newline + 1;
          continue;
        }
        const line = take(newline);
        offset = newline + 1;
        return line;
      }
      // No newline in what is left: keep it (unless skipping) and read more.
      if (!skipping && rest.length > offset) {
        parts.push(rest.slice(offset));
        partBytes += rest.length - offset;
      }
      rest = new Uint8Array(0);
      offset = 0;
      if (!skipping && partBytes > maxLineBytes) {
        parts = [];
        partBytes = 0;
        skipping = true;
        throw new SkillError(
          "args_too_large",
          `Input line longer than ${maxLineBytes} bytes; it was ignored`,
        );
      }
      if (ended) {
        if (skipping || partBytes === 0) return null;
        return take(0);
      }
      const chunk = new Uint8Array(64 * 1024);
      const n = await read(chunk);
      if (n === null) ended = true;
      else rest = chunk.subarray(0, n);
    }
  };
}

/** Asks a yes/no question on stderr; anything but y/yes is no. */
export async function confirm(
  ctx: Pick<Context, "stderr" | "readLine">,
  question: string,
): Promise<boolean> {
  ctx.stderr.write(`${question} [y/N] `);
  const answer = await ctx.readLine();
  if (answer === null) ctx.stderr.write("\n");
  return answer !== null && /^(y|yes)$/i.test(answer.trim());
}
