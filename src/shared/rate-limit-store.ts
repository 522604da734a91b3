import { createRequire } from 'node:module';
import type { FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { SharedStore } from './shared-store.js';

// @fastify/rate-limit's own stores (its Redis store's Lua script counts and expires in one atomic
// step); the package does not export them by name, only as files.
const require = createRequire(import.meta.url);
type Callback = (error: Error | null, result?: { current: number; ttl: number }) => void;
/** The store protocol as the plugin calls it (its type declarations leave out the last two arguments). */
interface Store {
  incr(key: string, callback: Callback, timeWindow: number, max: number): void;
  child(routeOptions: unknown): Store;
}
type StoreArgs = [continueExceeding: boolean, exponentialBackoff: boolean];
const RedisStore = require('@fastify/rate-limit/store/RedisStore.js') as new (...args: [...StoreArgs, redis: unknown, key: string]) => Store;
const LocalStore = require('@fastify/rate-limit/store/LocalStore.js') as new (...args: [...StoreArgs, cache: number]) => Store;

/** Projects whose in-process buckets are kept for the fallback (as @fastify/rate-limit's default). */
const LOCAL_BUCKETS = 5000;

/**
 * Rate-limit buckets shared by all replicas through Redis, and counted in process when Redis fails
 * or is away: then each replica limits on its own (a project may get up to replicas × the limit for
 * that while), which is better than refusing searches or not limiting at all. Redis commands are
 * bounded by REDIS_TIMEOUT_MS (redis-connection.ts).
 */
export function fallbackRateLimitStore(shared: SharedStore): FastifyRateLimitStoreCtor {
  class FallbackStore implements Store {
    constructor(
      readonly options: { continueExceeding?: boolean; exponentialBackoff?: boolean },
      readonly redis: Store = new RedisStore(Boolean(options.continueExceeding), Boolean(options.exponentialBackoff), shared.redis, shared.keyPrefixOf('rate-limit')),
      readonly local: Store = new LocalStore(Boolean(options.continueExceeding), Boolean(options.exponentialBackoff), LOCAL_BUCKETS),
    ) {}

    incr(key: string, callback: Callback, timeWindow: number, max: number): void {
      if (!shared.available) {
        shared.reportFallback('rate-limit');
        this.local.incr(key, callback, timeWindow, max);
        return;
      }
      this.redis.incr(
        key,
        (error, result) => {
          if (error === null && result !== undefined) return callback(null, result);
          shared.reportError('rate-limit', error);
          this.local.incr(key, callback, timeWindow, max);
        },
        timeWindow,
        max,
      );
    }

    child(routeOptions: unknown): Store {
      return new FallbackStore(this.options, this.redis.child(routeOptions), this.local.child(routeOptions));
    }
  }
  return FallbackStore as unknown as FastifyRateLimitStoreCtor;
}
