// The LLM stage inside the real service, end to end: real HTTP to the service, signed tokens, the
// real openai SDK talking to the OpenAI-compatible double.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/index.js';
import { startApp, testConfig, type RunningApp } from '../helpers/app.js';
import { watchLoopDelay } from '../helpers/loop-delay.js';
import { probeSlowdown } from '../helpers/machine-slowdown.js';
import { promptCandidates, startOpenAITestServer, type OpenAITestServer } from '../helpers/openai-test-server.js';
import { everydayTools } from '../fixtures/tools.js';
import { searchAs } from '../helpers/search.js';

const DEADLINE_MS = 400;
let double: OpenAITestServer;
let service: RunningApp;

const llmConfig = (baseUrl: string, deadlineMs = DEADLINE_MS): Config =>
  testConfig({
    search: { ...testConfig().search, deadlineMs },
    llm: {
      baseUrl,
      apiKey: 'k',
      model: 'test-model',
      promptTokenBudget: 7000,
      cacheTtlMs: 0,
      cacheEntriesPerProject: 100,
    },
  });

beforeAll(async () => {
  double = await startOpenAITestServer();
  service = await startApp(llmConfig(double.baseURL));
});
afterAll(async () => {
  await service.close();
  await double.close();
});
afterEach(() => {
  double.requests.length = 0;
  double.setScript({ behaviour: { kind: 'grade' } });
});

/** Fastify's own arrival-to-finish time of each completed search, in ms. */
const responseTimes = (app: RunningApp = service) =>
  app.logs.lines
    .filter((line) => line.msg === 'request completed' && (line.req as any)?.url !== '/healthz')
    .map((line) => Number(line.responseTime));

/** The service's own arrival-to-finish time of the search `requestId`, in ms (its `request completed` line). */
async function serviceTime(requestId: string, app: RunningApp = service): Promise<number> {
  for (;;) {
    const completed = app.logs.lines.find((line) => line.msg === 'request completed' && line.requestId === requestId);
    if (completed) return Number(completed.responseTime);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function search(query: string[], headers: Record<string, string> = {}, url = service.url) {
  const { status, body } = await searchAs<{
    results: { toolKey: string; relevance: number; explanation?: string }[];
    meta: Record<string, unknown>;
  }>(url, { query, tools: everydayTools, maxResults: 5 }, { path: '/catalog/search', projectId: 'project-a', headers });
  return { status, body };
}

describe('happy: the service reranks with the model', () => {
  // What the model's answer does is tested here, not the deadline: 400 ms left a busy machine's calls
  // unanswered in time (at load 7-16 the first search was "bm25", degraded "timeout"), so these
  // searches go to a service with a deadline no call on any machine needs.
  let roomy: RunningApp;
  beforeAll(async () => {
    roomy = await startApp(llmConfig(double.baseURL, 30_000));
  });
  afterAll(() => roomy.close());

  it('finds a tool that shares no word with the request, and audits the tokens spent', async () => {
    double.setScript({
      behaviour: {
        kind: 'grade',
        rule: (_request, candidates) =>
          candidates
            .filter((c) => c.line.includes('calendar_list_events'))
            .map((c) => ({ id: c.id, grade: 3, why: 'shows tomorrow’s events' })),
      },
    });
    const { status, body } = await search(["what's on my plate tomorrow"], {}, roomy.url);
    expect(status).toBe(200);
    expect(body.meta).toMatchObject({ ranker: 'llm' });
    expect(body.meta.degraded).toBeUndefined();
    expect(body.results[0]).toMatchObject({ toolKey: 'gcal:calendar_list_events' });
    expect(body.results[0]!.relevance).toBeGreaterThan(0.8);
    const audit = roomy.logs.lines.filter((line) => line.audit === 'search').at(-1) as Record<string, any>;
    expect(audit.llm.usage.totalTokens).toBeGreaterThan(0);
    expect(audit.llm.candidates).toBe(everydayTools.length);
  });

  it('a Japanese request reaches the model with its cross-lingual candidates first; the prompt says languages may differ', async () => {
    const { status, body } = await search(['スラックにメッセージを投稿して'], {}, roomy.url);
    expect(status).toBe(200);
    expect(body.meta).toMatchObject({ ranker: 'llm' });
    const prompt = double.requests.at(-1)!.body;
    expect(prompt.messages[0]!.content).toContain('may be written in another language than the tools');
    // The lexical stage's order through the dictionary (English tools), not the list's order.
    expect(promptCandidates(prompt)[0]!.line).toContain('slack_post_message');
    expect(body.results[0]).toMatchObject({ toolKey: 'slack:slack_post_message' });
  });

  it('says at start which mode it runs in', async () => {
    expect(service.logs.lines.some((line) => line.msg === 'LLM rerank stage on' && line.model === 'test-model')).toBe(
      true,
    );
    const plain = await startApp(testConfig());
    try {
      expect(plain.logs.lines.some((line) => String(line.msg).startsWith('BM25-only'))).toBe(true);
      const { body } = await search(['list calendar events'], {}, plain.url);
      expect(body.meta.ranker).toBe('bm25');
      expect(body.meta.degraded).toBeUndefined(); // BM25-only is not a degradation
    } finally {
      await plain.close();
    }
  });
});

describe('error: the deadline holds whatever the model does', () => {
  it('hanging model, 50 concurrent requests: every answer within the deadline + 400 ms, lexical, "timeout"', async () => {
    // A deadline long enough that the burst of 50 arrivals has been handled before the first expires
    // (on a shared 2-core machine the two bursts would otherwise overlap and measure CPU contention).
    const deadlineMs = 1500;
    const burst = await startApp(llmConfig(double.baseURL, deadlineMs));
    try {
      double.setScript({ behaviour: { kind: 'hang' } });
      await search(['warm up the code paths'], {}, burst.url);
      const completedBefore = responseTimes(burst).length;
      const slowdown = await probeSlowdown();
      // Distinct queries: 50 separate model calls hang at once (identical ones would share one call).
      const runs = await Promise.all(
        Array.from({ length: 50 }, (_, at) => search([`list calendar events ${at}`], {}, burst.url)),
      );
      for (const run of runs) {
        expect(run.status).toBe(200);
        expect(run.body.meta).toMatchObject({ ranker: 'bm25', degraded: 'timeout' });
        expect(run.body.results.length).toBeGreaterThan(0);
      }
      // Measured by the service (arrival to last byte sent), so that this process's own 50 clients
      // and the double, which share its event loop, do not count against it.
      const times = responseTimes(burst).slice(completedBefore);
      const machine = slowdown.stop();
      expect(times).toHaveLength(50);
      // The deadline holds (a search that waited on this model would never be answered); the margin is
      // for answering 50 searches at once: 400 ms on a quiet 2-core machine, stretched as the machine
      // stretched CPU work meanwhile (a fixed +400 ms failed at load 15-20 with every answer degraded in time).
      expect(Math.max(...times)).toBeLessThan(deadlineMs + 400 * machine.max);
      expect(double.requests.length).toBe(51);
    } finally {
      await burst.close();
    }
  });

  it('honours a shorter X-Search-Deadline-Ms', async () => {
    double.setScript({ behaviour: { kind: 'hang' } });
    // Without the header this service would wait 10 s for the model, on any machine.
    const patient = await startApp(llmConfig(double.baseURL, 10_000));
    try {
      const loop = watchLoopDelay();
      const run = await search(
        ['list calendar events'],
        { 'x-search-deadline-ms': '150', 'x-request-id': 'short-deadline' },
        patient.url,
      );
      const maxLagMs = await loop.stop();
      expect(run.body.meta).toMatchObject({ ranker: 'bm25', degraded: 'timeout' });
      // By the service's clock (this process's client work does not count); the deadline's timer is late
      // by the event loop's delay meanwhile, which the service shares with this process.
      expect(await serviceTime('short-deadline', patient)).toBeLessThan(150 + 200 + maxLagMs);
    } finally {
      await patient.close();
    }
  });

  it.each([
    [500, 'upstream_error'],
    [429, 'rate_limited'],
  ])('model answering %i: lexical answer promptly after the error, degraded "%s"', async (status, reason) => {
    double.setScript({ behaviour: { kind: 'error', status }, delayMs: 100 });
    const requestId = `error-${status}`;
    const loop = watchLoopDelay();
    const run = await search(['list calendar events'], { 'x-request-id': requestId });
    const maxLagMs = await loop.stop();
    expect(run.body.meta).toMatchObject({ ranker: 'bm25', degraded: reason });
    expect(double.requests).toHaveLength(1); // no retry: the service answered once its one call failed
    // From the double's error response to the service's last byte, on the service's own log clock
    // (wall-clock ms, same process), so this process's client work does not count against it.
    const completed = service.logs.lines.find(
      (line) => line.msg === 'request completed' && line.requestId === requestId,
    )!;
    const errorSentAt = performance.timeOrigin + double.requests[0]!.closedAt!;
    // A quiet machine takes a few ms; a busy one adds the event loop's delay meanwhile.
    expect(Number(completed.time) - errorSentAt).toBeLessThan(300 + maxLagMs);
    expect(Number(completed.time) - errorSentAt).toBeGreaterThan(-2); // the answer did wait for the error
  });

  it('stream cut mid-answer: "llm" with "partial"', async () => {
    const content = JSON.stringify({
      results: [
        { id: 't1', grade: 3, why: 'first' },
        { id: 't2', grade: 2, why: 'second' },
      ],
    });
    double.setScript({
      behaviour: { kind: 'stall', afterChars: content.indexOf('{"id":"t2"') + 4, inner: { kind: 'content', content } },
    });
    const loop = watchLoopDelay();
    const run = await search(['list calendar events'], { 'x-request-id': 'stalled-stream' });
    const maxLagMs = await loop.stop();
    expect(run.body.meta).toMatchObject({ ranker: 'llm', degraded: 'partial' });
    expect(run.body.results[0]!.explanation).toContain('first');
    // Answered at the deadline (the stream never ends): by the service's clock, late by the loop's delay.
    expect(await serviceTime('stalled-stream')).toBeLessThan(DEADLINE_MS + 100 + maxLagMs);
  });
});
