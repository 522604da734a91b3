// Two replicas on one real Redis on a busy host (issue 47): five busy loops beside them put a 2-core
// machine at load ≥ 5, as a small production node under a traffic peak. The replicas must still be
// one service: the shared rate limit admits at most the limit, a tool set stored through one resolves
// on the other, a request's model answer is paid for once, and every report answered 202 is in Redis.
// Before per-operation Redis waits (REDIS_TIMEOUT_MS = 100 ms for every command), at load ~5 the limit
// of 20 admitted 30 of 30, the other replica answered 409 for a stored set, and model calls were doubled.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchResponse } from '@catalog-search/core';
import { sampleRequest } from '../fixtures/tools.js';
import { startOpenAITestServer, type OpenAITestServer } from '../helpers/openai-test-server.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import { searchAs } from '../helpers/search.js';
import { testToken } from '../helpers/tokens.js';
import { burnCpu, type CpuBurner } from './cpu-burner.js';
import { report, startService, stopAll, type ServiceProcess } from './scenario.js';

const LIMIT = 20;
const PREFIX = 'load:';

let redis: TestRedis;
let inspect: Redis;
let model: OpenAITestServer;
let replicas: ServiceProcess[];
let burner: CpuBurner;

beforeAll(async () => {
  [redis, model] = await Promise.all([startTestRedis(), startOpenAITestServer()]);
  inspect = new Redis(redis.url);
  // REDIS_TIMEOUT_MS is left at its default: the scenario is the shipped configuration on a busy host.
  const env = {
    REDIS_URL: redis.url,
    REDIS_KEY_PREFIX: PREFIX,
    LLM_BASE_URL: model.baseURL,
    LLM_MODEL: 'test-model',
    RATE_LIMIT_PER_MINUTE: String(LIMIT),
    // A search that runs out of time answers lexically and caches no model answer: long enough that
    // the deadline is not what is tested here (the Redis waits are).
    SEARCH_DEADLINE_MS: '15000',
    // Embeddings would make the model's prompt (so its cache key) depend on background timing.
    EMBEDDINGS: 'off',
    MAX_IN_FLIGHT_PER_PROJECT: '32',
  };
  replicas = await Promise.all([startService(env), startService(env)]);
  burner = burnCpu(5);
  // The replicas' first searches compile code paths: warm both before measuring.
  await Promise.all(replicas.map((replica) => searchAs(replica, sampleRequest, { projectId: 'warm-up' })));
}, 120_000);

afterAll(async () => {
  await burner?.stop();
  await stopAll();
  inspect?.disconnect();
  await Promise.all([redis?.stop(), model?.close()]);
});

const search = (replica: ServiceProcess, projectId: string, body: unknown) =>
  searchAs<SearchResponse & { code?: string }>(replica, body, { projectId });

/** Runs `count` calls, `parallel` at a time. */
async function inWaves<T>(count: number, parallel: number, call: (at: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (let start = 0; start < count; start += parallel) {
    const wave = Array.from({ length: Math.min(parallel, count - start) }, (_, k) => call(start + k));
    results.push(...(await Promise.all(wave)));
  }
  return results;
}

describe('two replicas on one Redis at load ≥ 5', () => {
  it('the shared rate limit admits at most the limit across both replicas', async () => {
    const statuses = await inWaves(LIMIT + 10, 6, async (at) => {
      const answer = await search(replicas[at % 2]!, 'limited', { ...sampleRequest, query: [`limit probe ${at}`] });
      return answer.status;
    });
    const admitted = statuses.filter((status) => status === 200).length;
    report('replicas under load: rate limit', { limit: LIMIT, sent: statuses.length, admitted, load: burner.load() });
    expect(statuses.every((status) => status === 200 || status === 429)).toBe(true);
    expect(admitted).toBeLessThanOrEqual(LIMIT);
  }, 120_000);

  it('a tool set stored through one replica resolves on the other', async () => {
    const outcomes = await inWaves(12, 6, async (at) => {
      const project = `set-${at}`;
      const full = await search(replicas[0]!, project, { ...sampleRequest, query: [`post to slack ${at}`] });
      expect(full.status).toBe(200);
      const toolSet = full.body.meta.toolSet!;
      const byReference = await search(replicas[1]!, project, { query: [`post to slack ${at}`], toolSet });
      return byReference.status;
    });
    report('replicas under load: tool sets', {
      sets: outcomes.length,
      unknownOnOther: outcomes.filter((status) => status === 409).length,
      load: burner.load(),
    });
    expect(outcomes).toEqual(outcomes.map(() => 200));
  }, 120_000);

  it("pays for a request's model answer once: the other replica reads it from Redis", async () => {
    const before = model.requests.length;
    const rankers = await inWaves(12, 6, async (at) => {
      const body = { ...sampleRequest, query: [`schedule a meeting about topic ${at}`] };
      const first = await search(replicas[0]!, `llm-${at}`, body);
      const second = await search(replicas[1]!, `llm-${at}`, body);
      return [first.body.meta.ranker, second.body.meta.ranker];
    });
    const calls = model.requests.length - before;
    report('replicas under load: model calls', { requests: rankers.length, calls, load: burner.load() });
    expect(rankers.flat().every((ranker) => ranker === 'llm')).toBe(true);
    expect(calls).toBe(rankers.length);
  }, 120_000);

  it('every report answered 202 is in Redis', async () => {
    const answers = await inWaves(60, 6, async (at) => {
      const project = `report-${at % 6}`;
      const toolKey = `load:tool_${at}`;
      const response = await fetch(`${replicas[at % 2]!.url}/v1/catalog/feedback`, {
        method: 'POST',
        headers: { authorization: `Bearer ${testToken({ projectId: project })}`, 'content-type': 'application/json' },
        body: JSON.stringify({ events: [{ query: [`report ${at}`], toolKey, outcome: 'succeeded' }] }),
      });
      await response.arrayBuffer();
      return { project, toolKey, status: response.status };
    });
    const logged = new Set<string>();
    for (let project = 0; project < 6; project += 1) {
      for (const value of await inspect.lrange(`${PREFIX}feedback:report-${project}:log`, 0, -1))
        logged.add((JSON.parse(value) as { k: string }).k);
    }
    const accepted = answers.filter((answer) => answer.status === 202);
    const missing = accepted.filter((answer) => !logged.has(answer.toolKey));
    report('replicas under load: reports', {
      sent: answers.length,
      accepted: accepted.length,
      refused: answers.filter((answer) => answer.status === 503).length,
      missing: missing.length,
      load: burner.load(),
    });
    expect(answers.every((answer) => answer.status === 202 || answer.status === 503)).toBe(true);
    expect(missing).toEqual([]);
    // Stored, not refused: a busy host is no reason for a client to resend.
    expect(accepted.length).toBe(answers.length);
  }, 120_000);
});
