/**
 * A script's stdin when `skills run` is given one that is not a terminal (`echo text |
 * skills run …`): passed through as it arrives, bounded. A script that never reads it is
 * not held up (the feed stops when the script ends), and one that reads past the bound sees
 * its stdin end there. Under an agent (chat, MCP, the library) no stdin is given: the
 * script's stdin is closed.
 */

/** The most a script reads from `skills run`'s stdin (16 MiB). */
export const MAX_SCRIPT_STDIN_BYTES = 16 * 1024 * 1024;

/**
 * `input` up to `maxBytes`; past that the stream ends and `onCut` is called once (the rest
 * is left unread).
 */
export function boundedInput(
  input: ReadableStream<Uint8Array>,
  maxBytes: number,
  onCut: () => void,
): ReadableStream<Uint8Array> {
  let passed = 0;
  return input.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        const room = maxBytes - passed;
        if (chunk.length <= room) {
          passed += chunk.length;
          controller.enqueue(chunk);
          return;
        }
        if (room > 0) controller.enqueue(chunk.subarray(0, room));
        passed = maxBytes;
        onCut();
        controller.terminate();
      },
    }),
  );
}

/**
 * Copies `input` into the child's stdin in the background; `stop()` ends the copy (the
 * script has exited). A script that exits or closes its stdin unread is no error.
 */
export function feedStdin(
  input: ReadableStream<Uint8Array>,
  stdin: WritableStream<Uint8Array>,
): { stop(): void } {
  const controller = new AbortController();
  input.pipeTo(stdin, { signal: controller.signal }).catch(() => {});
  return { stop: () => controller.abort() };
}
