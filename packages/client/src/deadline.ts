import { abortAfter } from '@catalog-search/core';

/**
 * One search's time budget: an AbortSignal that fires when `timeoutMs` elapses or when the
 * caller's signal fires, whichever is first. The caller's signal is chained by core's abortAfter
 * (not `AbortSignal.any`) so the listener is removed in `dispose()`: routers often pass one
 * long-lived signal for a whole session, and every search must leave nothing attached to it.
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
  const startedAt = monotonicNow();
  // Core's timer signal: it fires whatever the garbage collector does, and leaves the caller's signal on dispose.
  const wait = abortAfter(timeoutMs, callerSignal);
  let timedOut = false;
  let callerAborted = false;
  // Set before anyone listening to the deadline's signal hears of the abort (this listener is first).
  const settle = (): void => {
    if (callerSignal?.aborted) callerAborted = true;
    else timedOut = true;
  };
  if (wait.signal.aborted) settle();
  else wait.signal.addEventListener('abort', settle, { once: true });

  return {
    signal: wait.signal,
    timeoutMs,
    get timedOut() {
      return timedOut;
    },
    get callerAborted() {
      return callerAborted;
    },
    remainingMs: () => timeoutMs - (monotonicNow() - startedAt),
    dispose: () => wait.dispose(),
  };
}
