import { createRequire } from 'node:module';
import type { FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { SharedStore } from '../redis/shared-store.js';

// @fastify/rate-limit's in-process store; the package does not export it by name, only as a file.
const require = createRequire(import.meta.url);
type Callback = (error: Error | null, result?: { current: number; ttl: number }) => void;
/** The store protocol as the plugin calls it (its type declarations leave out the last two arguments). */
interface Store {
  incr(key: string, callback: Callback, timeWindow: number, max: number): void;
  child(routeOptions: unknown): Store;
}
type StoreArgs = [continueExceeding: boolean, exponentialBackoff: boolean];
const LocalStore = require('@fastify/rate-limit/store/LocalStore.js') as new (
  ...args: [...StoreArgs, cache: number]
) => Store;

/** Projects whose in-process buckets are kept for the fallback (as @fastify/rate-limit's default). */
const LOCAL_BUCKETS = 5000;

/**
 * Counts a request and expires the bucket in one atomic step. @fastify/rate-limit's own Redis script
 * sets the expiry only on the first increment, so a key that lost it (an INCR that ran alone, a
 * PERSIST, a restore without TTLs) kept its project at 429 forever; this one sets it whenever the key
 * has none. The service sets neither continueExceeding nor exponential backoff.
 */
const COUNT_SCRIPT = `
local current = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {current, ttl}
`;

interface CountingRedis {
  catalogRateLimit(
    key: string,
    timeWindow: number,
    callback: (error: Error | null, result?: [number, number]) => void,
  ): void;
}

/** The shared buckets in Redis, under `prefix` (the route's method and URL appended per route, as the plugin's stores do). */
class RedisStore implements Store {
  constructor(
    private readonly shared: SharedStore,
    private readonly prefix: string,
  ) {
    if (!('catalogRateLimit' in shared.redis))
      shared.redis.defineCommand('catalogRateLimit', { numberOfKeys: 1, lua: COUNT_SCRIPT });
  }

  incr(key: string, callback: Callback, timeWindow: number): void {
    (this.shared.redis as unknown as CountingRedis).catalogRateLimit(this.prefix + key, timeWindow, (error, result) => {
      if (error || result === undefined) callback(error ?? new Error('no answer from the rate-limit script'));
      else callback(null, { current: result[0], ttl: result[1] });
    });
  }

  child(routeOptions: unknown): Store {
    const { routeInfo } = routeOptions as { routeInfo: { method: string; url: string } };
    return new RedisStore(this.shared, `${this.prefix}${routeInfo.method}${routeInfo.url}-`);
  }
}

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
      readonly redis: Store = new RedisStore(shared, shared.keyPrefixOf('rate-limit')),
      readonly local: Store = new LocalStore(
        Boolean(options.continueExceeding),
        Boolean(options.exponentialBackoff),
        LOCAL_BUCKETS,
      ),
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
