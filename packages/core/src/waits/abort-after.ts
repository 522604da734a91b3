/**
 * An AbortSignal that aborts after `ms` (with a `TimeoutError`, as `AbortSignal.timeout` does) or when
 * `parent` aborts, whichever comes first; `dispose()` clears the timer and leaves `parent`.
 *
 * Why not `AbortSignal.any([AbortSignal.timeout(ms), parent])`: on Node 20 a timeout signal that only
 * `AbortSignal.any` holds is collected by a major GC and never fires (nodejs/node#57736;
 * docs/performance.md#deadlines-and-the-garbage-collector). Here the timer's callback holds the
 * controller, and Node's timer list holds the timer until it fires or is cleared, so the abort happens
 * whatever the collector does.
 */
export interface AbortAfter {
  readonly signal: AbortSignal;
  /** Clears the timer and detaches from the parent: call when the wait is over. Idempotent. */
  dispose(): void;
}

export function abortAfter(ms: number, parent?: AbortSignal): AbortAfter {
  const controller = new AbortController();
  const onParentAbort = () => controller.abort(parent?.reason);
  // Not unref'd: a script awaiting only this wait would otherwise exit (code 13) instead of timing out.
  const timer = setTimeout(
    () => controller.abort(new DOMException('The operation timed out.', 'TimeoutError')),
    Math.max(0, ms),
  );
  if (parent?.aborted) onParentAbort();
  else parent?.addEventListener('abort', onParentAbort, { once: true });
  const dispose = () => {
    clearTimeout(timer);
    parent?.removeEventListener('abort', onParentAbort);
  };
  // Once aborted there is nothing left to wait for: release the timer and the parent's listener.
  controller.signal.addEventListener('abort', dispose, { once: true });
  return { signal: controller.signal, dispose };
}
