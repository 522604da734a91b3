// Shared learning (LEARNING_SHARED) on two replicas sharing one real Redis: what k projects taught
// through one replica raises a fresh project's search on the other, a DELETE through either removes it
// on both, nothing in Redis shows a request's word, and a flood of unique terms stays within bytes.
import { Redis } from 'ioredis';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchResponse } from '@catalog-search/core';
import { parseConfig } from '../../src/config/index.js';
import {
  LocalLedger,
  MAX_CONTRIBUTIONS_PER_PROJECT,
  type SharedLedger,
} from '../../src/learning/shared/shared-ledger.js';
import { RedisLedger } from '../../src/learning/shared/shared-ledger-redis.js';
import { associationId, SharedModel } from '../../src/learning/shared/shared-model.js';
import { connectRedis } from '../../src/redis/redis-connection.js';
import { SharedStore } from '../../src/redis/shared-store.js';
import { sampleTools } from '../fixtures/tools.js';
import { routerOf, TAUGHT_TOOL, UNMATCHED_REQUESTS, untilReportsStored } from '../routes/feedback-client.js';
import { startApp, testConfig, type RunningApp } from '../helpers/app.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';

const K = 3;
/** Every association's threshold exactly K (k = K − 1, no spread), so the K-th project is the one that tips it. */
const EXACTLY_K = { minProjects: K - 1, thresholdSpread: 1 };
const TEST = ['jot the squad retro takeaways'];
/** The requests' own words (none is in the tools' text): none may be readable in Redis. */
const REQUEST_WORDS = ['jot', 'retro', 'takeaways', 'squad', 'somewhere', 'everyone'];
let redis: TestRedis;
let inspect: Redis;
let replicas: RunningApp[];

beforeAll(async () => {
  redis = await startTestRedis();
  inspect = new Redis(redis.url);
  const config = testConfig();
  const replica = () =>
    startApp({
      ...config,
      // Generous: a busy machine must not pause Redis use (shared-store.ts) in the middle of the test.
      redis: parseConfig({ REDIS_URL: redis.url, REDIS_TIMEOUT_MS: '2000' }).redis,
      feedback: { ...config.feedback, shared: { enabled: true, ...EXACTLY_K, maxAssociations: 10_000 } },
    });
  replicas = await Promise.all([replica(), replica()]);
  // Reports are refused (503) until a replica's Redis connection is up.
  await Promise.all(replicas.map((replica) => untilReportsStored(replica.url)));
  // A replica keeps to itself until its Redis connection is ready: wait until each one's searches
  // are remembered in Redis.
  for (const [i, { url }] of replicas.entries()) {
    for (let tries = 0; tries < 100; tries += 1) {
      await routerOf(url, `warm-up-${i}`).search(TEST, sampleTools);
      if ((await inspect.keys(`*feedback-search:warm-up-${i}:*`)).length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}, 60_000);
afterAll(async () => {
  inspect?.disconnect();
  await Promise.all((replicas ?? []).map((replica) => replica.close()));
  await redis?.stop();
});

const answerOf = (response: SearchResponse) =>
  JSON.stringify({ ...response, meta: { ...response.meta, requestId: '' } });

/** Every key and every value in Redis, as text. */
async function redisText(): Promise<string> {
  const parts: string[] = [];
  for (const key of await inspect.keys('*')) {
    parts.push(key);
    const type = await inspect.type(key);
    if (type === 'string') parts.push((await inspect.get(key)) ?? '');
    else if (type === 'list') parts.push(...(await inspect.lrange(key, 0, -1)));
    else if (type === 'hash') parts.push(...Object.entries(await inspect.hgetall(key)).flat());
    else if (type === 'zset') parts.push(...(await inspect.zrange(key, '0', '-1')));
    else if (type === 'set') parts.push(...(await inspect.smembers(key)));
  }
  return parts.join('\n').toLowerCase();
}

describe('shared learning across replicas (Redis)', () => {
  it('k projects taught through one replica raise a fresh project on the other; DELETE removes it on both', async () => {
    const [a, b] = replicas.map((replica) => replica.url) as [string, string];
    const before = await routerOf(b, 'fresh').search(TEST, sampleTools);
    for (let project = 1; project <= K; project += 1) {
      const router = routerOf(a, `teacher-${project}`);
      for (const query of UNMATCHED_REQUESTS.slice(0, 2)) {
        const { meta } = await router.search(query, sampleTools);
        // A's write of the search to Redis is not waited for by its answer: a router reports later.
        for (let tries = 0; tries < 100; tries += 1) {
          if (await inspect.exists(`catalog-search:feedback-search:teacher-${project}:${meta.requestId}`)) break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        // Reported through the other replica: the search is found by its requestId in Redis.
        const report = await routerOf(b, `teacher-${project}`).report([
          { requestId: meta.requestId, toolKey: TAUGHT_TOOL, outcome: 'succeeded' },
        ]);
        expect(report.body).toEqual({ accepted: 1, ignored: [] });
      }
      const onB = await routerOf(b, 'fresh').search(TEST, sampleTools);
      if (project < K) expect(answerOf(onB)).toBe(answerOf(before));
    }
    for (const url of [a, b]) {
      const after = await routerOf(url, 'fresh').search(TEST, sampleTools);
      expect(after.results[0]!.toolKey).toBe(TAUGHT_TOOL);
      expect(after.meta.learning).toBe('shared');
    }

    // Nothing at rest shows a request's words: not the logs, the remembered searches or the shared model.
    const stored = await redisText();
    expect(stored).toContain('learning-shared');
    for (const word of REQUEST_WORDS) expect(stored).not.toContain(word);

    expect(await routerOf(b, 'teacher-2').forget()).toBe(204);
    for (const url of [a, b])
      expect(answerOf(await routerOf(url, 'fresh').search(TEST, sampleTools))).toBe(answerOf(before));
    expect(await inspect.keys('*learning-shared:teacher-2:*')).toEqual([]);
    // The shared model's keys are durable state: no TTL.
    for (const key of await inspect.keys('*learning-shared:*')) expect(await inspect.pttl(key)).toBe(-1);
  });
});

/**
 * Redis bytes documented (docs/privacy.md): per association (the model's hash and its eviction
 * order), and the changes list the replicas catch up by.
 */
const REDIS_BYTES_PER_ASSOCIATION = 250;
const REDIS_CHANGES_BYTES = 512 * 1024;
/** Per-project Redis bytes of its says at most (docs/privacy.md: 2,000 says, measured 284 KB). */
const REDIS_BYTES_PER_PROJECT = 300 * 1024;

describe('a flood of unique terms (200 projects × 500 each)', () => {
  const MAX_ASSOCIATIONS = 20_000;
  const termOf = (project: number, i: number) => `t${String(project).padStart(5, '0')}${String(i).padStart(10, '0')}`;
  const TOOL = 'tool0000000000id';
  const KEPT = associationId('kept-term-00000', TOOL).padEnd(32, '0');

  async function flood(ledger: SharedLedger) {
    for (let project = 0; project < K; project += 1)
      await ledger.contribute(`early-${project}`, [{ id: KEPT, sign: 1 }], Date.now());
    for (let project = 0; project < 200; project += 1) {
      const says = Array.from({ length: 500 }, (_, i) => ({
        id: associationId(termOf(project, i), TOOL),
        sign: 1 as const,
      }));
      await ledger.contribute(`flood-${project}`, says, Date.now());
    }
    // A replica that far behind reloads the model in the background: its searches meanwhile keep the old one.
    await ledger.model();
    if (ledger instanceof RedisLedger) await ledger.reloading;
    // The association k projects reported outlives 100,000 reported once (least-evidenced go first).
    expect((await ledger.model())?.size).toBe(1);
  }

  const modelOptions = { ...EXACTLY_K, draw: () => 0, halfLifeMs: 30 * 86_400_000, maxBoost: 0.75 };

  it('in process: the ledger stays within its bound', async () => {
    const model = new SharedModel(modelOptions);
    const ledger = new LocalLedger(model, {
      maxAssociations: MAX_ASSOCIATIONS,
      maxContributions: 2 * MAX_ASSOCIATIONS,
    });
    await flood(ledger);
    expect(ledger.bytes).toBeLessThanOrEqual(MAX_ASSOCIATIONS * (160 + 2 * 120));
  });

  it('in Redis: the shared model stays within its documented bytes, each project within its own', async () => {
    const shared = new SharedStore(
      connectRedis({ url: redis.url, commandTimeoutMs: 5000, keyPrefix: 'flood:' }),
      'flood:',
      { error: () => {}, fallback: () => {} },
      pino({ level: 'silent' }),
    );
    await new Promise<void>((resolve) => shared.redis.once('ready', () => resolve()));
    try {
      const model = new SharedModel(modelOptions);
      await flood(new RedisLedger(model, shared, MAX_ASSOCIATIONS));
      // The associations (the hash also marks each project that has says: one field each).
      expect(await inspect.zcard('flood:learning-shared:#deployment:evidence')).toBeLessThanOrEqual(MAX_ASSOCIATIONS);
      expect(await inspect.hlen('flood:learning-shared:#deployment:associations')).toBeLessThanOrEqual(
        MAX_ASSOCIATIONS + 200 + K,
      );
      let modelBytes = 0;
      for (const name of ['associations', 'evidence', 'changes', 'seq']) {
        modelBytes += Number(
          await inspect.memory('USAGE', `flood:learning-shared:#deployment:${name}`, 'SAMPLES', '0'),
        );
      }
      expect(modelBytes).toBeLessThanOrEqual(MAX_ASSOCIATIONS * REDIS_BYTES_PER_ASSOCIATION + REDIS_CHANGES_BYTES);
      // One project at its bound of says.
      const says = Array.from({ length: MAX_CONTRIBUTIONS_PER_PROJECT + 500 }, (_, i) => ({
        id: associationId(termOf(9999, i), TOOL),
        sign: 1 as const,
      }));
      await new RedisLedger(model, shared, MAX_ASSOCIATIONS).contribute('busy', says, Date.now());
      const busy = 'flood:learning-shared:busy:says';
      expect(await inspect.zcard(busy)).toBe(MAX_CONTRIBUTIONS_PER_PROJECT);
      expect(Number(await inspect.memory('USAGE', busy, 'SAMPLES', '0'))).toBeLessThanOrEqual(REDIS_BYTES_PER_PROJECT);
    } finally {
      shared.redis.disconnect();
    }
  }, 120_000);

  it('in Redis: DELETE never claims to withdraw says an eviction took (allkeys-lru)', async () => {
    const shared = new SharedStore(
      connectRedis({ url: redis.url, commandTimeoutMs: 5000, keyPrefix: 'evict:' }),
      'evict:',
      { error: () => {}, fallback: () => {} },
      pino({ level: 'silent' }),
    );
    await new Promise<void>((resolve) => shared.redis.once('ready', () => resolve()));
    try {
      const ledger = new RedisLedger(new SharedModel(modelOptions), shared, MAX_ASSOCIATIONS);
      const id = associationId(termOf(1, 1), TOOL);
      for (const project of ['kept', 'evicted']) {
        expect(await ledger.contribute(project, [{ id, sign: 1 }], Date.now())).toBe(true);
      }
      // What allkeys-lru may do: evict one project's says key and leave the counts.
      const [saysKey] = await inspect.keys('evict:learning-shared:*evicted*');
      expect(saysKey).toBeDefined();
      await inspect.del(saysKey!);
      // Its DELETE is refused (503 at the route), and the counts stay as they are: nothing is
      // claimed withdrawn that was not.
      expect(await ledger.withdraw('evicted')).toBe('evicted');
      const associations = 'evict:learning-shared:#deployment:associations';
      expect(await inspect.hget(associations, id)).toMatch(/^2,/);
      // A project whose says are there, and one that never said anything, withdraw as before.
      expect(await ledger.withdraw('kept')).toBe('done');
      expect(await inspect.hget(associations, id)).toMatch(/^1,/);
      expect(await ledger.withdraw('never-reported')).toBe('done');
      // A replica reading the whole model skips the marks: one association, nothing else.
      const reader = new RedisLedger(new SharedModel({ ...modelOptions, minProjects: 0 }), shared, MAX_ASSOCIATIONS);
      await reader.model();
      await reader.reloading;
      expect((await reader.model())?.size).toBe(1);
    } finally {
      shared.redis.disconnect();
    }
  });
});
