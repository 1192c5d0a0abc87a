/**
 * A script's stdin when `skills run` is given one that is not a terminal (`echo text |
 * skills run …`): passed through as it arrives, bounded. A script that never reads it is
 * not held up (the feed stops when the script ends), and one that reads past the bound sees
 * its stdin end there. Under an agent (chat, MCP, the library) no stdin is given: the
 * script's stdin is closed.
 */

import type { StdinReader } from "../../core/io.ts";

/** The most a script reads from `skills run`'s stdin (16 MiB). */
export const MAX_SCRIPT_STDIN_BYTES = 16 * 1024 * 1024;
/** How much is read from the input at a time. */
const CHUNK_BYTES = 64 * 1024;

/**
 * Copies `input` into the child's stdin in the background, up to `maxBytes`: past that the
 * child's stdin is closed and `onCut` called once (the rest is left unread). `stop()` ends the
 * copy (the script has exited). The input is read by its own calls, not as a stream: a
 * stream of Deno's stdin with a transform to bound it cost a run ~10 ms before its script
 * started. A script that exits or closes its stdin unread is no error.
 */
export function feedStdin(
  input: StdinReader,
  stdin: WritableStream<Uint8Array>,
  maxBytes: number,
  onCut?: () => void,
): { stop(): void } {
  let stopped = false;
  const writer = stdin.getWriter();
  const copy = async () => {
    let passed = 0;
    while (!stopped) {
      const chunk = new Uint8Array(CHUNK_BYTES);
      const read = await input.read(chunk);
      if (read === null || stopped) break;
      const room = maxBytes - passed;
      if (room > 0) await writer.write(chunk.subarray(0, Math.min(read, room)));
      passed += Math.min(read, room);
      if (read > room) {
        onCut?.();
        break;
      }
    }
    await writer.close();
  };
  copy().catch(() => {});
  return { stop: () => void (stopped = true) };
}
