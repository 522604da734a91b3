import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Whether a request used this replica's own state where the replicas normally share Redis (a rate
 * limit counted here, a tool set or model answer not read or written there): the search answers
 * `meta.sharedState: "local"`. Marked by the shared store wherever it falls back (shared-store.ts), so
 * no stage has to pass the request along; tracked per request through Node's AsyncLocalStorage.
 */
const tracked = new AsyncLocalStorage<{ local: boolean; waitUntil?: number }>();

/** A Fastify hook (callback style, so that the later hooks and the handler run inside the context). */
export function trackLocalState(_request: unknown, _reply: unknown, done: () => void): void {
  tracked.run({ local: false }, done);
}

/** Marks the current request, if one is tracked. */
export function markLocalState(): void {
  const state = tracked.getStore();
  if (state) state.local = true;
}

/**
 * Bounds every Redis wait of the current request by its deadline (`performance.now()` + `ms`): a
 * search with 150 ms left does not wait REDIS_STATE_TIMEOUT_MS for its rate limit or tool set.
 */
export function boundRedisWaits(ms: number): void {
  const state = tracked.getStore();
  if (state) state.waitUntil = performance.now() + ms;
}

/** What is left of the current request's deadline for a Redis wait, if it has one. */
export function redisWaitLeft(): number | undefined {
  const until = tracked.getStore()?.waitUntil;
  return until === undefined ? undefined : Math.max(1, until - performance.now());
}

/** Whether the current request used local state instead of the shared one. */
export function usedLocalState(): boolean {
  return tracked.getStore()?.local === true;
}

/**
 * Runs `work` outside any request: work a request only started (a replica's reload of the shared
 * model) is neither bounded by that request's deadline nor marked on its answer.
 */
export function outsideRequests<T>(work: () => T): T {
  return tracked.exit(work);
}
