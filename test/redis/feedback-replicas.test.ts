// Learning from use on two service processes sharing one real Redis: a report made through one
// replica changes the other's next search, survives a restart, is bounded per project, and DELETE
// forgets it everywhere.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleTools } from '../fixtures/tools.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import { startServiceProcess, type ServiceProcess } from '../helpers/service-process.js';
import { TEST_SECRET } from '../helpers/app.js';
import { routerOf, TAUGHT_TOOL, UNMATCHED_REQUESTS, untilReportsStored } from '../routes/feedback-client.js';
import { testToken } from '../helpers/tokens.js';

const MAX_EVENTS = 20;
let redis: TestRedis;
let inspect: Redis;
let replicas: ServiceProcess[];
const env = () => ({
  AUTH_JWT_SECRET: TEST_SECRET,
  AUTH_ISSUER: 'https://router.example',
  AUTH_AUDIENCE: 'catalog-search',
  REDIS_URL: redis.url,
  REDIS_TIMEOUT_MS: '500',
  EMBEDDINGS: 'off',
  FEEDBACK_MAX_EVENTS: String(MAX_EVENTS),
});

beforeAll(async () => {
  redis = await startTestRedis();
  inspect = new Redis(redis.url, { lazyConnect: false });
  replicas = await Promise.all([startServiceProcess(env()), startServiceProcess(env())]);
  // Reports are refused (503) until a replica's Redis connection is up.
  await Promise.all(replicas.map((replica) => untilReportsStored(replica.url)));
}, 60_000);

afterAll(async () => {
  inspect?.disconnect();
  await Promise.all((replicas ?? []).map((replica) => replica.stop()));
  await redis?.stop();
});

const TEST = ['jot the squad retro takeaways'];

describe('learning from use across replicas (Redis)', () => {
  it("a report through one replica (by the other's requestId) changes the other's next search, and survives a restart", async () => {
    const [a, b] = replicas.map((replica) => routerOf(replica.url, 'shared-learning'));
    const before = await a!.search(TEST, sampleTools);
    expect(before.meta).not.toHaveProperty('learning');
    for (const query of UNMATCHED_REQUESTS.slice(0, 3)) {
      const { meta } = await a!.search(query, sampleTools);
      // The search was on A; its requestId is known to B through Redis.
      expect(await b!.report([{ requestId: meta.requestId, toolKey: TAUGHT_TOOL, outcome: 'succeeded' }])).toEqual({
        status: 202,
        body: { accepted: 1, ignored: [] },
      });
      expect((await a!.search(TEST, sampleTools)).results[0]!.toolKey).toBe(TAUGHT_TOOL);
    }
    const onB = await b!.search(TEST, sampleTools);
    expect(onB.results[0]!.toolKey).toBe(TAUGHT_TOOL);
    expect(onB.meta.learning).toBe('raised');

    // Another project on the same replicas learns nothing from it.
    const other = await routerOf(replicas[1]!.url, 'shared-other').search(TEST, sampleTools);
    expect(JSON.stringify(other.results)).toBe(JSON.stringify(before.results));
    expect(other.meta).not.toHaveProperty('learning');

    // A restarted replica (empty process) reads what the project taught from Redis.
    await replicas[0]!.stop();
    replicas[0] = await startServiceProcess(env());
    // Until its Redis connection is ready a replica answers lexically: allow it a few seconds.
    let restarted = await routerOf(replicas[0].url, 'shared-learning').search(TEST, sampleTools);
    for (let tries = 0; tries < 50 && restarted.meta.learning === undefined; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      restarted = await routerOf(replicas[0].url, 'shared-learning').search(TEST, sampleTools);
    }
    expect(restarted.results[0]!.toolKey).toBe(TAUGHT_TOOL);

    // DELETE on one replica: both rank as before, and Redis holds none of the project's reports.
    expect(await routerOf(replicas[1]!.url, 'shared-learning').forget()).toBe(204);
    for (const replica of replicas) {
      const answer = await routerOf(replica.url, 'shared-learning').search(TEST, sampleTools);
      expect(JSON.stringify(answer.results)).toBe(JSON.stringify(before.results));
      expect(answer.meta).not.toHaveProperty('learning');
    }
    expect(await inspect.keys('*feedback:shared-learning:log')).toEqual([]);
    // Restarts a replica: a process start on a busy machine.
  }, 60_000);

  it('keeps at most FEEDBACK_MAX_EVENTS reports of a project in Redis, under project-scoped keys', async () => {
    const router = routerOf(replicas[0]!.url, 'flooding');
    for (let round = 0; round < 5; round += 1) {
      const events = Array.from({ length: 10 }, (_, i) => ({
        query: [`flood request ${round} ${i}`],
        toolKey: `junk:tool_${round}_${i}`,
        outcome: 'succeeded',
      }));
      expect((await router.report(events)).body.accepted).toBe(10);
    }
    const keys = await inspect.keys('catalog-search:feedback*flooding*');
    expect(keys.sort()).toEqual(['catalog-search:feedback:flooding:log', 'catalog-search:feedback:flooding:seq']);
    expect(await inspect.llen('catalog-search:feedback:flooding:log')).toBe(MAX_EVENTS);
    // Durable state: no TTL, so a Redis that evicts only keys with one never evicts it (redis-eviction.test.ts).
    expect(await inspect.pttl('catalog-search:feedback:flooding:log')).toBe(-1);
  });

  it("drops reports older than 8 half-lives from the project's log at its next report", async () => {
    const day = 86_400_000;
    const event = (at: number) => JSON.stringify({ a: at, k: TAUGHT_TOOL, w: 1, t: ['jot'] });
    // Written by an older version: a log with a TTL, its first report 300 days old (8 × 30 days is 240).
    await inspect.rpush(
      'catalog-search:feedback:retention:log',
      event(Date.now() - 300 * day),
      event(Date.now() - day),
    );
    await inspect.set('catalog-search:feedback:retention:seq', '2');
    await inspect.pexpire('catalog-search:feedback:retention:log', 60_000);
    const router = routerOf(replicas[0]!.url, 'retention');
    expect((await router.report([{ query: TEST, toolKey: TAUGHT_TOOL, outcome: 'succeeded' }])).body.accepted).toBe(1);
    const kept = await inspect.lrange('catalog-search:feedback:retention:log', 0, -1);
    expect(kept.map((value) => (JSON.parse(value) as { a: number }).a < Date.now() - 2 * day)).toEqual([false, false]);
    expect(await inspect.pttl('catalog-search:feedback:retention:log')).toBe(-1);
  });

  it('with Redis down, searches still answer, and reports and DELETE say they could not be stored (503)', async () => {
    const router = routerOf(replicas[0]!.url, 'outage');
    await redis.kill();
    try {
      expect((await router.search(TEST, sampleTools)).results).toBeDefined();
      // Not 202: a report kept by this replica alone would be lost with it (durable-feedback.test.ts).
      expect((await router.report([{ query: TEST, toolKey: TAUGHT_TOOL, outcome: 'succeeded' }])).status).toBe(503);
      const response = await fetch(`${replicas[0]!.url}/v1/catalog/feedback`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${testToken({ projectId: 'outage' })}` },
      });
      expect(response.status).toBe(503);
      expect(((await response.json()) as { code: string }).code).toBe('STORE_UNAVAILABLE');
    } finally {
      await redis.start();
    }
  });
});
