// What a report costs Redis is bounded per body and charged to its project (issue 48): one 10 KB body
// of 100 events naming one search with 100 tools made 5,600–6,600 changes to the shared model (more
// than the change list keeps: every replica then read the whole model again) and was charged nothing.
// In this process with a real Redis; the work budget is made small so that a loop shows within a few
// bodies (each ~7,000 units), and its refill (1,000 units a second) is far slower than any machine sends
// them. Searches have a budget of their own of the same size, charged their ranking's CPU (#47).
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_QUERY_ITEMS, type SearchResponse } from '@catalog-search/core';
import { parseConfig } from '../../src/config/index.js';
import { syntheticTools } from '../fixtures/tools.js';
import { startApp, testConfig, type RunningApp } from '../helpers/app.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import { testToken } from '../helpers/tokens.js';
import { untilReportsStored } from '../routes/feedback-client.js';

const TOOLS = syntheticTools(120);
/** 26 words: each reported tool is a say on 27 associations (the words and the tool's use). */
const QUERY = [
  'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec ' +
    'romeo sierra tango uniform victor whiskey xray yankee zulu',
];
const SEQ = 'catalog-search:learning-shared:#deployment:seq';
/** Work units a project may spend per minute on reports (a 10 s burst: 10,000). */
const WORK_PER_MINUTE = 60_000;
let redis: TestRedis;
let inspect: Redis;
let server: RunningApp;

beforeAll(async () => {
  redis = await startTestRedis();
  inspect = new Redis(redis.url);
  const config = testConfig();
  server = await startApp({
    ...config,
    redis: parseConfig({ REDIS_URL: redis.url, REDIS_TIMEOUT_MS: '2000', REDIS_STATE_TIMEOUT_MS: '5000' }).redis,
    fairShare: { ...config.fairShare, workPerMinute: WORK_PER_MINUTE },
    // Without the history rule (shared-admission.ts), which holds back a fresh project's says: what a
    // counted report costs is measured here.
    feedback: {
      ...config.feedback,
      shared: { ...config.feedback.shared, enabled: true, maxAssociations: 100_000, admission: undefined },
    },
  });
  await untilReportsStored(server.url);
  // The process's first search compiles the ranking (45 ms of CPU against 9 once compiled): done here,
  // by a project of its own, so that the projects below are charged a search, not the compiler.
  await call('warm-up', 'POST', 'search', { query: QUERY, tools: TOOLS, maxResults: 5 }).then((r) => r.arrayBuffer());
}, 60_000);
afterAll(async () => {
  inspect?.disconnect();
  await server?.close();
  await redis?.stop();
});

function call(projectId: string, method: string, path: string, body: unknown) {
  return fetch(`${server.url}/v1/catalog/${path}`, {
    method,
    headers: { authorization: `Bearer ${testToken({ projectId })}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** One search, remembered in Redis (its write is not awaited by the answer), and its requestId; or its status. */
async function search(projectId: string): Promise<string | number> {
  const response = await call(projectId, 'POST', 'search', { query: QUERY, tools: TOOLS, maxResults: 5 });
  if (response.status !== 200) {
    await response.arrayBuffer();
    return response.status;
  }
  const { meta } = (await response.json()) as SearchResponse;
  for (let tries = 0; tries < 200; tries += 1) {
    if (await inspect.exists(`catalog-search:feedback-search:${projectId}:${meta.requestId}`)) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return meta.requestId;
}

async function searchOnce(projectId: string): Promise<string> {
  const requestId = await search(projectId);
  expect(requestId, 'the search itself is within its budget').toEqual(expect.any(String));
  return requestId as string;
}

/** The 10 KB body: 100 events naming one search, each a different tool of its list. */
const heavyBody = (requestId: string) => ({
  events: TOOLS.slice(0, 100).map(({ toolKey }) => ({ requestId, toolKey, outcome: 'succeeded' })),
});

describe('a report’s Redis cost', () => {
  it('100 events naming one search count 16 tools, each association one change', async () => {
    const requestId = await searchOnce('heavy');
    const before = Number((await inspect.get(SEQ)) ?? 0);
    const response = await call('heavy', 'POST', 'feedback', heavyBody(requestId));
    expect(response.status).toBe(202);
    const answer = (await response.json()) as { accepted: number; ignored: Array<{ index: number; reason: string }> };
    expect(answer.accepted).toBe(MAX_QUERY_ITEMS);
    expect(answer.ignored).toHaveLength(100 - MAX_QUERY_ITEMS);
    expect(answer.ignored[0]).toMatchObject({ index: MAX_QUERY_ITEMS, reason: expect.stringMatching(/^toolKey: /) });
    // 16 tools × 27 associations, each listed once for the replicas (5,400 on main for this body).
    const changes = Number(await inspect.get(SEQ)) - before;
    expect(changes).toBe(MAX_QUERY_ITEMS * 27);
  });

  it('a loop of such bodies is refused (429), while as many small reports of another project are not', async () => {
    // Each round a search and its 10 KB report, as a looping agent sends them. The searches draw on the same
    // budget, charged their CPU (which depends on the machine), so the loop is refused at either step once
    // the reports' cost has put the project in debt; the first round, before any, is not.
    const statuses: number[] = [];
    for (let body = 0; body < 6 && !statuses.includes(429); body += 1) {
      const requestId = await search('looping');
      if (typeof requestId === 'number') {
        statuses.push(requestId);
        continue;
      }
      const response = await call('looping', 'POST', 'feedback', heavyBody(requestId));
      await response.arrayBuffer();
      statuses.push(response.status);
    }
    expect(statuses[0]).toBe(202);
    expect(statuses).toContain(429);

    const small: number[] = [];
    for (let body = 0; body < 6; body += 1) {
      const response = await call('small', 'POST', 'feedback', {
        events: [{ query: [`jot the retro takeaways ${body}`], toolKey: TOOLS[0]!.toolKey, outcome: 'succeeded' }],
      });
      await response.arrayBuffer();
      small.push(response.status);
    }
    expect(small).toEqual(small.map(() => 202));
  });
});
