/**
 * Runs an eval's jobs `--jobs N` at a time, in their order, with a progress callback
 * (done, total, elapsed, ETA). The first job that fails stops the others from starting,
 * aborts those running (their signal) and is what the pool throws.
 */

export interface Progress {
  done: number;
  total: number;
  elapsedMs: number;
  /** Estimated time left from the mean of the jobs done (undefined before the first). */
  etaMs: number | undefined;
}

export async function runPool<T, R>(
  items: readonly T[],
  jobs: number,
  work: (item: T, index: number, signal: AbortSignal) => Promise<R>,
  options: { signal?: AbortSignal; onProgress?: (progress: Progress) => void } = {},
): Promise<R[]> {
  const results = new Array<R>(items.length);
  const stop = new AbortController();
  const parent = options.signal;
  const onParentAbort = () => stop.abort(parent?.reason);
  parent?.addEventListener("abort", onParentAbort, { once: true });
  const started = performance.now();
  let next = 0;
  let done = 0;
  let failure: { error: unknown } | undefined;
  const report = () => {
    const elapsedMs = performance.now() - started;
    const etaMs = done === 0 ? undefined : (elapsedMs / done) * (items.length - done);
    options.onProgress?.({ done, total: items.length, elapsedMs, etaMs });
  };
  const worker = async () => {
    while (failure === undefined && !stop.signal.aborted && next < items.length) {
      const index = next++;
      try {
        results[index] = await work(items[index]!, index, stop.signal);
        done++;
        report();
      } catch (error) {
        failure ??= { error };
        stop.abort(error);
      }
    }
  };
  try {
    report();
    await Promise.all(Array.from({ length: Math.max(1, Math.min(jobs, items.length)) }, worker));
  } finally {
    parent?.removeEventListener("abort", onParentAbort);
  }
  if (failure) throw failure.error;
  parent?.throwIfAborted();
  return results;
}
