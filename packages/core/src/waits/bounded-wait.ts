// The one way a caller stops waiting for work it does not own: a shared model call, a worker's
// vectors, a reranker that may hang, the trace exporter at shutdown, the client's report queue. The
// work goes on (its owner ends it); only the wait is bounded. The service and the client both use it.

interface WaitBounds {
  /** Stop waiting when this aborts (the request's deadline, or its client gone). */
  signal?: AbortSignal;
  /** Stop waiting after this many milliseconds. */
  ms?: number;
  /**
   * When the time is up, look for the work's value once more after the poll phase: on a
   * busy event loop a timer and a socket's reply are due in the same turn, and timers run first, so a
   * reply sent in time would count as late (Redis commands, src/redis/shared-store.ts).
   */
  afterPoll?: boolean;
}

/**
 * The work's value, or `undefined` once a bound is reached, whichever comes first. A failure before
 * then is passed on; a later one is ignored. The timer is cleared as soon as the wait ends and lives
 * in Node's timer list, so no garbage collection can lose it (docs/performance.md#deadlines-and-the-garbage-collector).
 */
export function boundedWait<T>(work: Promise<T>, bounds: WaitBounds): Promise<T | undefined> {
  const { signal, ms, afterPoll } = bounds;
  if (signal?.aborted) {
    work.catch(() => {});
    return Promise.resolve(undefined);
  }
  return new Promise<T | undefined>((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const end = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', stop);
    };
    const stop = () => {
      end();
      resolve(undefined);
    };
    // afterPoll: a timer set from a timer runs in the loop's next turn, after this turn's poll phase
    // (setTimeout rather than setImmediate: core runs in browsers too).
    if (ms !== undefined) timer = setTimeout(afterPoll ? () => setTimeout(stop, 0) : stop, Math.max(0, ms));
    signal?.addEventListener('abort', stop, { once: true });
    work.then(
      (value) => {
        end();
        resolve(value);
      },
      (error: unknown) => {
        end();
        reject(error);
      },
    );
  });
}

/**
 * The work's value, or a rejection with the signal's reason as soon as it aborts: boundedWait for a
 * caller that must fail rather than go on without the value (the client's POST, which takes no
 * signal of its own at every step). The listener is removed as soon as the wait ends.
 */
export function raceSignal<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
