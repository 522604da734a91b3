/**
 * One search's time budget: an AbortSignal that fires when `timeoutMs` elapses or when the
 * caller's signal fires, whichever is first. The caller's signal is chained by hand (not
 * `AbortSignal.any`) so the listener is removed in `dispose()`: routers often pass one long-lived
 * signal for a whole session, and every search must leave nothing attached to it.
 */
export interface Deadline {
  readonly signal: AbortSignal;
  /** The whole budget this deadline was started with. */
  readonly timeoutMs: number;
  /** Whether the budget ran out (as opposed to the caller aborting). */
  readonly timedOut: boolean;
  /** Whether the caller's signal fired first. */
  readonly callerAborted: boolean;
  /** Milliseconds left of the budget (may be negative once elapsed). */
  remainingMs(): number;
  /** Clears the timer and detaches from the caller's signal. Call in `finally`. */
  dispose(): void;
}

export const monotonicNow = (): number => globalThis.performance?.now() ?? Date.now();

export function startDeadline(timeoutMs: number, callerSignal: AbortSignal | undefined): Deadline {
  const controller = new AbortController();
  const startedAt = monotonicNow();
  let timedOut = false;
  let callerAborted = false;

  const onCallerAbort = (): void => {
    if (controller.signal.aborted) return;
    callerAborted = true;
    controller.abort(callerSignal?.reason);
  };
  const timer = setTimeout(() => {
    if (controller.signal.aborted) return;
    timedOut = true;
    controller.abort(new Error(`timed out after ${timeoutMs} ms`));
  }, timeoutMs);

  if (callerSignal?.aborted) onCallerAbort();
  else callerSignal?.addEventListener('abort', onCallerAbort, { once: true });

  return {
    signal: controller.signal,
    timeoutMs,
    get timedOut() {
      return timedOut;
    },
    get callerAborted() {
      return callerAborted;
    },
    remainingMs: () => timeoutMs - (monotonicNow() - startedAt),
    dispose: () => {
      clearTimeout(timer);
      callerSignal?.removeEventListener('abort', onCallerAbort);
    },
  };
}

/** Settles with `promise`, or rejects with the signal's reason as soon as it fires (for awaits that take no signal). */
export function raceSignal<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
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
