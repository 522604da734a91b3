import type { FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { SharedStore } from '../redis/shared-store.js';

type Callback = (error: Error | null, result?: { current: number; ttl: number }) => void;
/** The store protocol as the plugin calls it (its type declarations leave out the last two arguments). */
interface Store {
  incr(key: string, callback: Callback, timeWindow: number, max: number): void;
  child(routeOptions: unknown): Store;
}

/** Projects whose buckets are remembered for the fallback (as @fastify/rate-limit's default store). */
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

type CountingRedis = Redis & { catalogRateLimit(key: string, timeWindow: number): Promise<[number, number]> };

/** A bucket as this replica last knew it: the shared count when Redis answered, its own estimate since. */
interface Bucket {
  count: number;
  /** `Date.now()` when the window ends. */
  endsAt: number;
}

/**
 * Rate-limit buckets shared by all replicas through Redis (waiting REDIS_STATE_TIMEOUT_MS, shared-store.ts).
 * When Redis fails or is away, each replica counts on, conservatively: from the bucket's last shared
 * count, each request it admits counts as one per replica (the number of replicas seen beating in
 * Redis), so that the replicas together admit no more than the limit. Before, each replica counted
 * alone and a project got up to replicas × the limit (issue #47; figures in docs/operations.md).
 */
export function fallbackRateLimitStore(shared: SharedStore): FastifyRateLimitStoreCtor {
  if (!('catalogRateLimit' in shared.redis))
    shared.redis.defineCommand('catalogRateLimit', { numberOfKeys: 1, lua: COUNT_SCRIPT });
  const redis = shared.redis as CountingRedis;

  class FallbackStore implements Store {
    constructor(
      readonly options: unknown,
      readonly prefix: string = shared.keyPrefixOf('rate-limit'),
      readonly buckets = new LRUCache<string, Bucket>({ max: LOCAL_BUCKETS }),
    ) {}

    incr(key: string, callback: Callback, timeWindow: number): void {
      void shared
        .command('rate-limit', () => redis.catalogRateLimit(this.prefix + key, timeWindow))
        .then((answer) => {
          const now = Date.now();
          let bucket = this.buckets.get(key);
          if (answer !== undefined) {
            // Searches admitted here while Redis was away are not in its count: never count below them.
            const [shared, ttl] = answer;
            const known = bucket !== undefined && bucket.endsAt > now ? bucket.count + 1 : 0;
            const current = Math.max(shared, known);
            this.buckets.set(key, { count: current, endsAt: now + ttl });
            return callback(null, { current, ttl });
          }
          if (bucket === undefined || bucket.endsAt <= now) bucket = { count: 0, endsAt: now + timeWindow };
          bucket.count += shared.replicas;
          this.buckets.set(key, bucket);
          callback(null, { current: bucket.count, ttl: bucket.endsAt - now });
        });
    }

    child(routeOptions: unknown): Store {
      const { routeInfo } = routeOptions as { routeInfo: { method: string; url: string } };
      return new FallbackStore(this.options, `${this.prefix}${routeInfo.method}${routeInfo.url}-`);
    }
  }
  return FallbackStore as unknown as FastifyRateLimitStoreCtor;
}
