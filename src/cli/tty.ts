/** Terminal helpers: line input from stdin and yes/no confirmation. */

import type { Context } from "../core/io.ts";

/** A line reader over Deno.stdin that keeps unread bytes between calls. */
export function stdinLineReader(): () => Promise<string | null> {
  const decoder = new TextDecoder();
  let buffered = "";
  let ended = false;
  return async () => {
    while (true) {
      const newline = buffered.indexOf("\n");
      if (newline !== -1) {
        const line = buffered.slice(0, newline).replace(/\r$/, "");
        buffered = buffered.slice(newline + 1);
        return line;
      }
      if (ended) {
        if (buffered === "") return null;
        const rest = buffered;
        buffered = "";
        return rest;
      }
      const chunk = new Uint8Array(4096);
      const n = await Deno.stdin.read(chunk);
      if (n === null) ended = true;
      else buffered += decoder.decode(chunk.subarray(0, n), { stream: true });
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
