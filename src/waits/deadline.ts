import { abortAfter, type AbortAfter } from '@catalog-search/core';

/**
 * The one deadline of a search, handed to every stage: its budget (SEARCH_DEADLINE_MS, lowered by the
 * client's X-Search-Deadline-Ms: http/deadline-header.ts) from when the request arrived. Monotonic
 * (`performance.now()`), so a wall clock step cannot stretch or cut it.
 */
export interface Deadline {
  /** When the answer must be sent, in `performance.now()` milliseconds. */
  readonly at: number;
  /** Aborts when the deadline passes (or the caller gave up): pass it to every outbound call. */
  readonly signal: AbortSignal;
  remainingMs(): number;
  /** Clears the deadline's timer (if a stage made one): call once the search is answered. */
  dispose(): void;
}

/**
 * Starts the clock for the rest of a search: `budgetMs` less the `elapsedMs` already spent on the
 * request. `cancel` (e.g. the caller hung up) aborts the signal early too, so outbound calls stop
 * when nobody waits for the answer. The signal fires whatever the garbage collector does (abortAfter).
 */
export function startDeadline(budgetMs: number, options: { elapsedMs?: number; cancel?: AbortSignal } = {}): Deadline {
  const remaining = Math.max(0, Math.floor(budgetMs - (options.elapsedMs ?? 0)));
  const at = performance.now() + remaining;
  const remainingMs = () => Math.max(0, at - performance.now());
  let timeout: AbortAfter | undefined;
  return {
    at,
    // Made when a stage first waits on something: a search answered from its caches (no model call, no
    // encoder wait) never does: a timer and an abort listener per search cost a search by reference
    // a measurable share (docs/performance.md).
    get signal() {
      // Rounded up: the timer never fires before `at` (Node's timer clock counts whole milliseconds).
      timeout ??= abortAfter(Math.ceil(remainingMs()), options.cancel);
      return timeout.signal;
    },
    remainingMs,
    dispose: () => timeout?.dispose(),
  };
}
