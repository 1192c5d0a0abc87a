/**
 * Timers for the hot paths (`skills run`, git). The global setTimeout loads Deno's Node
 * timer layer on first use, about 4 ms on every command that arms a timeout; an
 * AbortSignal.timeout costs a tenth of that. Like an unref'd timer, it does not keep the
 * process alive by itself: use it while something else (a child process, a pipe) does.
 */

/** Calls `fn` once after `ms` milliseconds unless the returned function is called first. */
export function afterDelay(ms: number, fn: () => void): () => void {
  const signal = AbortSignal.timeout(ms);
  const listener = () => fn();
  signal.addEventListener("abort", listener, { once: true });
  return () => signal.removeEventListener("abort", listener);
}

/** Resolves with `value` after `ms` (never rejects), for races against pending I/O. */
export function delay<T>(ms: number, value: T): { promise: Promise<T>; cancel: () => void } {
  let cancel = () => {};
  const promise = new Promise<T>((resolve) => {
    cancel = afterDelay(ms, () => resolve(value));
  });
  return { promise, cancel };
}
