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

describe('without Redis, the buckets count conservatively', () => {
  it('goes on from the last shared count, each search counted once per replica seen beating', async () => {
    const own = await startTestRedis();
    const connect = () =>
      new SharedStore(
        connectRedis({ url: own.url, commandTimeoutMs: 2_000, keyPrefix: 'fallback:' }),
        'fallback:',
        { error: () => {}, fallback: () => {} },
        pino({ level: 'silent' }),
      );
    const until = async (check: () => boolean | Promise<boolean>) => {
      for (let at = 0; at < 200 && !(await check()); at += 1) await new Promise((resolve) => setTimeout(resolve, 50));
    };
    // Two replicas: the second beats once the first has, so it counts both.
    const other = connect();
    await until(async () => (await other.redis.zcard('fallback:replicas:').catch(() => 0)) === 1);
    const replica = connect();
    await until(() => replica.replicas === 2);
    try {
      expect(replica.replicas).toBe(2);
      const Store = fallbackRateLimitStore(replica) as unknown as new (options: object) => StoreLike;
      const store = new Store({});
      for (let at = 1; at <= 3; at += 1) expect((await count(store, 'busy')).current).toBe(at);
      await own.kill();
      await until(() => replica.redis.status !== 'ready');
      // The other replica may admit as many meanwhile: each admitted search counts twice here.
      const counted = await count(store, 'busy');
      expect(counted.current).toBe(5);
      expect(counted.ttl).toBeGreaterThan(50_000);
      expect((await count(store, 'busy')).current).toBe(7);
      // A bucket never seen in Redis starts at 0: with a limit of 10, each replica admits 5.
      const admitted = [];
      for (let at = 0; at < 10; at += 1) admitted.push((await count(store, 'new')).current);
      expect(admitted.filter((current) => current <= 10)).toHaveLength(5);
      // Redis back (empty: a restart): the searches admitted meanwhile still count.
      await own.start();
      await until(() => replica.availableFor('rate-limit'));
      expect((await count(store, 'busy')).current).toBe(8);
    } finally {
      replica.redis.disconnect();
      other.redis.disconnect();
      await own.stop();
    }
  }, 30_000);
});
