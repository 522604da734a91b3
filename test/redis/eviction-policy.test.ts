// A Redis that evicts among all keys (allkeys-*) can push out what projects taught: the service says so
// once connected, and says nothing for a policy that evicts only keys with a TTL (as shipped).
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis } from '../../src/redis/redis-connection.js';
import { SharedStore } from '../../src/redis/shared-store.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';

let redis: TestRedis;
beforeAll(async () => {
  redis = await startTestRedis({ args: ['--maxmemory', '48mb'] });
});
afterAll(() => redis.stop());

/** Connects a store with `policy` set on the Redis; resolves with the warnings logged within a second of being ready. */
async function warningsWith(policy: string): Promise<Array<{ msg: string; maxmemoryPolicy?: string }>> {
  const admin = connectRedis({ url: redis.url, commandTimeoutMs: 2000, keyPrefix: 'test:' });
  await new Promise((resolve) => admin.once('ready', resolve));
  await admin.config('SET', 'maxmemory-policy', policy);
  admin.disconnect();
  const lines: Array<{ level: number; msg: string; maxmemoryPolicy?: string }> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as (typeof lines)[number]);
      done();
    },
  });
  const store = new SharedStore(
    connectRedis({ url: redis.url, commandTimeoutMs: 2000, keyPrefix: 'test:' }),
    'test:',
    { error: () => {}, fallback: () => {} },
    pino({ level: 'info' }, stream),
  );
  await new Promise((resolve) => store.redis.once('ready', resolve));
  await new Promise((resolve) => setTimeout(resolve, 1000));
  store.redis.disconnect();
  return lines.filter((line) => line.level === 40);
}

describe('the Redis eviction policy', () => {
  it('warns when the policy would evict learning (allkeys-lru), not when it evicts only keys with a TTL', async () => {
    const warned = await warningsWith('allkeys-lru');
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatchObject({ maxmemoryPolicy: 'allkeys-lru' });
    expect(warned[0]!.msg).toMatch(/volatile-lru/);
    expect(await warningsWith('volatile-lru')).toEqual([]);
  });
});
