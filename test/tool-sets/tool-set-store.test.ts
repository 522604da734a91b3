// The tool-set store against a real Redis: what it writes, when it renews the shared copy, and how a
// second replica reads it.
import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import pino from 'pino';
import { canonicalToolSet, toolSetId } from '@catalog-search/core';
import { MemoryBudget } from '../../src/memory/exports.js';
import { connectRedis } from '../../src/redis/redis-connection.js';
import { SharedStore } from '../../src/redis/shared-store.js';
import { ToolSetStore } from '../../src/tool-sets/tool-set-store.js';
import { manyTools } from '../fixtures/tools.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';

const TTL_MS = 60_000;
/** A cache budget of its own per store (as each replica has one). */
const testMemory = () => new MemoryBudget({ maxBytes: 64 * 1024 * 1024, projectShare: 0.5 });
let redis: TestRedis;
let stores: SharedStore[] = [];

beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(() => redis.stop());
afterEach(() => {
  vi.useRealTimers();
  for (const store of stores) store.redis.disconnect();
  stores = [];
});

async function sharedStore(): Promise<SharedStore> {
  const store = new SharedStore(
    connectRedis({ url: redis.url, commandTimeoutMs: 500, keyPrefix: 'test:' }),
    'test:',
    { error: () => {}, fallback: () => {} },
    pino({ level: 'silent' }),
  );
  await new Promise<void>((resolve) => store.redis.once('ready', () => resolve()));
  stores.push(store);
  return store;
}

describe('ToolSetStore with Redis', () => {
  it('writes the canonical list under the project, renews it when sent again after half its TTL, and serves it to another replica', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const shared = await sharedStore();
    const store = new ToolSetStore({
      ttlMs: TTL_MS,
      cacheBytes: 10_000_000,
      maxSharedBytes: 5_000_000,
      shared,
      memory: testMemory(),
    });
    const tools = manyTools(20);
    const first = store.register('project-a', tools);
    expect(await first.kept).toBe(true);
    expect(first.id).toBe(await toolSetId(tools));
    const key = shared.key('tool-set', 'project-a', first.id);
    expect(Number(await shared.redis.pttl(key))).toBeGreaterThan(TTL_MS - 5_000);

    // Sent again soon: the bytes are not written again, but the TTL is renewed (it was not: the other
    // replica answered 409 up to half a TTL early).
    await shared.redis.set(key, 'the bytes as first written', 'PX', 1_000);
    await store.register('project-a', structuredClone(tools)).kept;
    expect(await shared.redis.get(key)).toBe('the bytes as first written');
    expect(Number(await shared.redis.pttl(key))).toBeGreaterThan(TTL_MS - 5_000);
    // Gone meanwhile: written again.
    await shared.redis.del(key);
    await store.register('project-a', structuredClone(tools)).kept;
    expect(await shared.redis.get(key)).toBe(canonicalToolSet(tools));
    // Sent again after half the TTL: written again, with a new TTL.
    await shared.redis.del(key);
    vi.setSystemTime(Date.now() + TTL_MS / 2 + 1);
    await store.register('project-a', structuredClone(tools)).kept;
    expect(await shared.redis.exists(key)).toBe(1);

    const otherReplica = new ToolSetStore({
      ttlMs: TTL_MS,
      cacheBytes: 10_000_000,
      maxSharedBytes: 5_000_000,
      shared: await sharedStore(),
      memory: testMemory(),
    });
    expect(await otherReplica.resolve('project-a', first.id)).toEqual(tools);
    expect(await otherReplica.resolve('project-b', first.id)).toBeUndefined();
  });

  it('keeps no list in Redis that is larger than its byte bound', async () => {
    const shared = await sharedStore();
    const store = new ToolSetStore({
      ttlMs: TTL_MS,
      cacheBytes: 10_000_000,
      maxSharedBytes: 1_000,
      shared,
      memory: testMemory(),
    });
    const { id, kept } = store.register('project-big', manyTools(20));
    // Kept in process only: the id is still worth handing out (this replica can answer it).
    expect(await kept).toBe(true);
    expect(await shared.redis.exists(shared.key('tool-set', 'project-big', id))).toBe(0);
    // Too big for both stores: kept nowhere, so no id should be handed out.
    const nowhere = new ToolSetStore({
      ttlMs: TTL_MS,
      cacheBytes: 1_000,
      maxSharedBytes: 1_000,
      shared,
      memory: testMemory(),
    });
    expect(await nowhere.register('project-big', manyTools(20)).kept).toBe(false);
  });

  it("takes a value under a list's key for absent unless it is that very list of usable tools", async () => {
    const shared = await sharedStore();
    const options = { ttlMs: TTL_MS, cacheBytes: 0, maxSharedBytes: 5_000_000, shared, memory: testMemory() };
    const tools = manyTools(3);
    const { id, kept } = new ToolSetStore(options).register('project-a', tools);
    expect(await kept).toBe(true);
    const key = shared.key('tool-set', 'project-a', id);
    const canonical = (await shared.redis.get(key))!;
    const reader = new ToolSetStore(options);
    // Corrupted, not JSON, another list, and values another writer could leave: none is the list named.
    for (const foreign of [
      '[null]',
      '[1,2]',
      '{}',
      canonical.slice(0, -1),
      canonicalToolSet(manyTools(4)),
      canonical.replace(tools[0]!.toolName, 'other'),
    ]) {
      await shared.redis.set(key, foreign);
      expect(await reader.resolve('project-a', id), foreign.slice(0, 40)).toBeUndefined();
    }
    await shared.redis.set(key, canonical);
    expect(await reader.resolve('project-a', id)).toEqual(tools);
  });

  it("keeps a project whose id looks like another project's hashed id apart from it", async () => {
    const shared = await sharedStore();
    const options = { ttlMs: TTL_MS, cacheBytes: 0, maxSharedBytes: 5_000_000, shared, memory: testMemory() };
    const { id, kept } = new ToolSetStore(options).register('team x', manyTools(3));
    expect(await kept).toBe(true);
    // A plain id ("h-" and 43 base64url characters) that is the hashed form of "team x"'s.
    const lookalike = `h-${createHash('sha256').update('team x').digest('base64url')}`;
    expect(await new ToolSetStore(options).resolve(lookalike, id)).toBeUndefined();
  });
});
