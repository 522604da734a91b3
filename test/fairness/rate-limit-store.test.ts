// The shared rate-limit buckets against a real Redis: every count leaves the key with an expiry.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { connectRedis } from '../../src/redis/redis-connection.js';
import { fallbackRateLimitStore } from '../../src/fairness/rate-limit-store.js';
import { SharedStore } from '../../src/redis/shared-store.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';

let redis: TestRedis;
let shared: SharedStore;

beforeAll(async () => {
  redis = await startTestRedis();
  shared = new SharedStore(
    connectRedis({ url: redis.url, commandTimeoutMs: 2_000, keyPrefix: 'test:' }),
    'test:',
    { error: () => {}, fallback: () => {} },
    pino({ level: 'silent' }),
  );
  await new Promise<void>((resolve) => shared.redis.once('ready', () => resolve()));
});
afterAll(async () => {
  shared.redis.disconnect();
  await redis.stop();
});

type Counted = { current: number; ttl: number };
interface StoreLike {
  incr(key: string, callback: (error: Error | null, result?: Counted) => void, timeWindow: number, max: number): void;
}

const count = (store: StoreLike, key: string) =>
  new Promise<Counted>((resolve, reject) =>
    store.incr(key, (error, result) => (error ? reject(error) : resolve(result!)), 60_000, 10),
  );

describe('shared rate-limit buckets', () => {
  it('count in Redis with the window as TTL, and give a key that lost its expiry one again', async () => {
    const Store = fallbackRateLimitStore(shared) as unknown as new (options: object) => StoreLike;
    const store = new Store({});
    const key = `${shared.keyPrefixOf('rate-limit')}project-1`;
    expect(await count(store, 'project-1')).toEqual({ current: 1, ttl: 60_000 });
    expect((await count(store, 'project-1')).current).toBe(2);
    expect(Number(await shared.redis.pttl(key))).toBeGreaterThan(50_000);
    // The key loses its TTL (a PERSIST, an INCR that ran alone, a restore without TTLs): with the
    // plugin's script it kept its project at 429 forever.
    await shared.redis.persist(key);
    expect(Number(await shared.redis.pttl(key))).toBe(-1);
    const counted = await count(store, 'project-1');
    expect(counted).toEqual({ current: 3, ttl: 60_000 });
    expect(Number(await shared.redis.pttl(key))).toBeGreaterThan(50_000);
  });
});
