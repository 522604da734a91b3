// A DELETE answered 204 is honoured by every replica's next search (issue 48), on both eviction
// policies: two replicas in this process share one real Redis; what a project taught (its own
// learning, and its say in the shared model) is forgotten through one replica, and the other's next
// search no longer uses it, also while that replica is reloading a model it had fallen behind on, when
// the key that tells it a DELETE happened was evicted, and when Redis does not answer at all. A search
// that goes without shared learning while its replica reloads after a DELETE says so
// (`meta.sharedLearning: "reloading"`).
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchResponse } from '@catalog-search/core';
import { parseConfig } from '../../src/config/index.js';
import { sampleTools } from '../fixtures/tools.js';
import { routerOf, TAUGHT_TOOL, UNMATCHED_REQUESTS, untilReportsStored } from '../routes/feedback-client.js';
import { startApp, testConfig, type RunningApp } from '../helpers/app.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import { testToken } from '../helpers/tokens.js';

const K = 3;
/** Every association's threshold exactly K (k = K − 1, no spread), so the K-th project is the one that tips it. */
const EXACTLY_K = { minProjects: K - 1, thresholdSpread: 1 };
const TEST = ['jot the squad retro takeaways'];
const DEPLOYMENT = 'catalog-search:learning-shared:#deployment:';
/** Associations written straight into Redis, so that a replica is far behind: below k, as most are. */
const FILLER = 100_000;
const FILL = `
for i = tonumber(ARGV[1]), tonumber(ARGV[2]) do
  local id = string.format('f%015d', i) .. string.format('filler%016d', i)
  redis.call('HSET', KEYS[1], id, '1,0,' .. ARGV[3] .. ',0')
  redis.call('ZADD', KEYS[2], 1, id)
end
return 1`;

const answerOf = (response: SearchResponse) =>
  JSON.stringify({ ...response, meta: { ...response.meta, requestId: '' } });
/** The answer but for `meta.sharedLearning`, which says whether the replica was reloading at that moment. */
const rankingOf = (response: SearchResponse) => {
  const { sharedLearning: _reloading, ...meta } = response.meta;
  return answerOf({ ...response, meta });
};

/** Polls `check` until it holds; a bound only a hang reaches (a busy machine only makes it slower). */
async function until(check: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const giveUpAt = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > giveUpAt) throw new Error(`still not: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.each(['noeviction', 'allkeys-lru'])('forgetting on two replicas (maxmemory-policy %s)', (policy) => {
  let redis: TestRedis;
  let inspect: Redis;
  let a: RunningApp;
  let b: RunningApp;

  beforeAll(async () => {
    redis = await startTestRedis({ args: ['--maxmemory-policy', policy] });
    inspect = new Redis(redis.url);
    // It loses its connection when the last test stops Redis.
    inspect.on('error', () => {});
    const config = testConfig();
    const replica = () =>
      startApp({
        ...config,
        // Generous: a busy machine must not pause Redis use (shared-store.ts) in the middle of the test.
        redis: parseConfig({ REDIS_URL: redis.url, REDIS_TIMEOUT_MS: '2000', REDIS_STATE_TIMEOUT_MS: '5000' }).redis,
        feedback: { ...config.feedback, shared: { enabled: true, ...EXACTLY_K, maxAssociations: 200_000 } },
      });
    [a, b] = await Promise.all([replica(), replica()]);
    await Promise.all([a, b].map((replica) => untilReportsStored(replica.url)));
  }, 60_000);
  afterAll(async () => {
    inspect?.disconnect();
    await Promise.all([a?.close(), b?.close()]);
    await redis?.stop();
  });

  /** K projects teach through replica A, each searching and reporting there. */
  async function teach(prefix: string, projects = Array.from({ length: K }, (_, i) => i + 1)) {
    for (const project of projects) {
      const router = routerOf(a.url, `${prefix}-${project}`);
      for (const query of UNMATCHED_REQUESTS.slice(0, 2)) {
        const { meta } = await router.search(query, sampleTools);
        const { status } = await router.report([
          { requestId: meta.requestId, toolKey: TAUGHT_TOOL, outcome: 'succeeded' },
        ]);
        expect(status).toBe(202);
      }
    }
  }

  it('a project’s shared say and own learning, forgotten through A, are gone from B’s next search', async () => {
    const fresh = routerOf(b.url, 'fresh');
    const before = await fresh.search(TEST, sampleTools);
    await teach('teacher');
    expect((await fresh.search(TEST, sampleTools)).meta.learning).toBe('shared');
    // teacher-1's own learning, read by B.
    expect((await routerOf(b.url, 'teacher-1').search(TEST, sampleTools)).meta.learning).toBe('raised');

    expect(await routerOf(a.url, 'teacher-2').forget()).toBe(204);
    expect(answerOf(await fresh.search(TEST, sampleTools))).toBe(answerOf(before));
    expect(await routerOf(a.url, 'teacher-1').forget()).toBe(204);
    expect((await routerOf(b.url, 'teacher-1').search(TEST, sampleTools)).meta.learning).toBeUndefined();
    await routerOf(a.url, 'teacher-3').forget();
  });

  it('B, reloading a model it fell far behind on, serves what it had, but nothing a DELETE withdrew', async () => {
    const fresh = routerOf(b.url, 'lagging-fresh');
    const before = await fresh.search(TEST, sampleTools);
    await teach('lag');
    expect((await fresh.search(TEST, sampleTools)).meta.learning).toBe('shared');
    // 100,000 associations more, and the change list left behind: every replica must read the model again.
    const now = String(Math.floor(Date.now() / 60_000));
    for (let from = 0; from < FILLER; from += 20_000)
      await inspect.eval(FILL, 2, `${DEPLOYMENT}associations`, `${DEPLOYMENT}evidence`, from, from + 19_999, now);
    await inspect.incrby(`${DEPLOYMENT}seq`, 10_000);
    // Nothing was withdrawn: B goes on with the model it has while it reads the new one, and says nothing.
    const reloading = await fresh.search(TEST, sampleTools);
    expect(reloading.meta.learning).toBe('shared');
    expect(reloading.meta.sharedLearning).toBeUndefined();

    expect(await routerOf(a.url, 'lag-2').forget()).toBe(204);
    // Still reloading, B goes without shared learning and says so; done, it has read the DELETE.
    const after = await fresh.search(TEST, sampleTools);
    expect(rankingOf(after)).toBe(answerOf(before));
    expect([undefined, 'reloading']).toContain(after.meta.sharedLearning);
    // B catches up: taught again, the association reaches B's searches.
    await teach('lag', [2]);
    await until(async () => (await fresh.search(TEST, sampleTools)).meta.learning === 'shared', 'B caught up');
    for (const project of [1, 2, 3]) await routerOf(a.url, `lag-${project}`).forget();
  }, 120_000);

  it('B does not use its model once the key that tells it of DELETEs is gone (evicted), until it has read again', async () => {
    const fresh = routerOf(b.url, 'evicted-fresh');
    await teach('evicted');
    expect(await routerOf(a.url, 'evicted-3').forget()).toBe(204);
    await teach('evicted', [3]);
    expect((await fresh.search(TEST, sampleTools)).meta.learning).toBe('shared');
    // What allkeys-lru may do to any key; the association's counts stay.
    expect(await inspect.del(`${DEPLOYMENT}withdrawn`)).toBe(1);
    const withheld = await fresh.search(TEST, sampleTools);
    expect(withheld.meta.learning).toBeUndefined();
    expect(withheld.meta.sharedLearning).toBe('reloading');
    // A project that refuses shared learning is told nothing of it.
    const refusing = await fetch(`${b.url}/v1/catalog/search`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${testToken({ projectId: 'evicted-refuser', claims: { useSharedLearning: false } })}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ query: TEST, tools: sampleTools }),
    });
    expect(((await refusing.json()) as SearchResponse).meta.sharedLearning).toBeUndefined();
    await until(async () => (await fresh.search(TEST, sampleTools)).meta.learning === 'shared', 'B read again');
    expect((await fresh.search(TEST, sampleTools)).meta.sharedLearning).toBeUndefined();
    for (const project of [1, 2, 3]) await routerOf(a.url, `evicted-${project}`).forget();
  }, 120_000);

  it('with Redis gone after a DELETE, B uses neither the shared model nor the project’s own learning', async () => {
    const fresh = routerOf(b.url, 'away-fresh');
    await teach('away');
    expect((await fresh.search(TEST, sampleTools)).meta.learning).toBe('shared');
    expect((await routerOf(b.url, 'away-1').search(TEST, sampleTools)).meta.learning).toBe('raised');
    expect(await routerOf(a.url, 'away-1').forget()).toBe(204);
    await redis.kill();
    try {
      for (const router of [fresh, routerOf(b.url, 'away-1')]) {
        const { meta } = await router.search(TEST, sampleTools);
        expect(meta.learning).toBeUndefined();
        expect(meta.sharedState).toBe('local');
        // Redis did not answer: not a reload (sharedState says it).
        expect(meta.sharedLearning).toBeUndefined();
      }
    } finally {
      await redis.start();
    }
  });
});
