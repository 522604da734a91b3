// Cost controls: per-project answer cache (LRU + TTL) and single-flight of identical requests.
import { describe, expect, it } from 'vitest';
import { createReranker, type RerankerConfig } from '../../src/rerank/exports.js';
import { testModelForFile } from '../helpers/test-model.js';
import { everydayTools } from '../fixtures/tools.js';
import { rerankRun } from '../helpers/rerank.js';

const double = testModelForFile();

const reranker = (overrides: Partial<RerankerConfig> = {}) =>
  createReranker({ baseURL: double.baseURL, model: 'test-model', ...overrides });
const calendar = { query: ['list my calendar events'], tools: everydayTools };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('answer cache', () => {
  it('answers an identical request in the same project from the cache', async () => {
    const stage = reranker();
    const first = await rerankRun(stage, calendar);
    const second = await rerankRun(stage, calendar);
    expect(double.requests).toHaveLength(1);
    expect(first.outcome).toMatchObject({ ranker: 'llm', stats: { cached: false } });
    expect(second.outcome).toMatchObject({ ranker: 'llm', stats: { cached: true } });
    expect(second.outcome.stats?.usage).toBeUndefined(); // nothing was spent on it
    expect(second.outcome.ranked.map((entry) => [entry.tool.toolKey, entry.relevance])).toEqual(
      first.outcome.ranked.map((entry) => [entry.tool.toolKey, entry.relevance]),
    );
  });

  it('never shares answers across projects', async () => {
    const stage = reranker();
    await rerankRun(stage, { ...calendar, projectId: 'project-a' });
    const other = await rerankRun(stage, { ...calendar, projectId: 'project-b' });
    expect(double.requests).toHaveLength(2);
    expect(other.outcome.stats?.cached).toBe(false);
  });

  it('misses when the queries, context, tools or model differ', async () => {
    const stage = reranker();
    await rerankRun(stage, calendar);
    await rerankRun(stage, { ...calendar, query: ['list my calendar events today'] });
    await rerankRun(stage, { ...calendar, context: 'for the weekly review' });
    await rerankRun(stage, { ...calendar, tools: everydayTools.slice(1) });
    await rerankRun(reranker({ model: 'other-model' }), calendar);
    expect(double.requests).toHaveLength(5);
  });

  it('forgets answers after the TTL', async () => {
    const stage = reranker({ cacheTtlMs: 40 });
    await rerankRun(stage, calendar);
    await sleep(80);
    const later = await rerankRun(stage, calendar);
    expect(later.outcome.stats?.cached).toBe(false);
    expect(double.requests).toHaveLength(2);
  });

  it('does not cache degraded answers', async () => {
    const stage = reranker();
    double.setScript({ behaviour: { kind: 'error', status: 500 } });
    await rerankRun(stage, calendar);
    double.setScript({ behaviour: { kind: 'grade' } });
    const retry = await rerankRun(stage, calendar);
    expect(retry.outcome).toMatchObject({ ranker: 'llm', stats: { cached: false } });
    expect(double.requests).toHaveLength(2);
  });
});

describe('single flight', () => {
  it('identical concurrent requests share one model call', async () => {
    double.setScript({ behaviour: { kind: 'grade' }, delayMs: 150 });
    const stage = reranker();
    const runs = await Promise.all([
      rerankRun(stage, calendar),
      rerankRun(stage, calendar),
      rerankRun(stage, calendar),
    ]);
    expect(double.requests).toHaveLength(1);
    expect(runs.map((run) => run.outcome.ranker)).toEqual(['llm', 'llm', 'llm']);
    expect(runs.map((run) => run.outcome.stats?.shared)).toEqual([false, true, true]);
    expect(runs.filter((run) => run.outcome.stats?.usage)).toHaveLength(1); // the tokens are counted once
  });

  it('a joined request still keeps its own, earlier deadline', async () => {
    double.setScript({ behaviour: { kind: 'grade' }, delayMs: 600 });
    const stage = reranker();
    const leader = rerankRun(stage, { ...calendar, deadlineMs: 2_000 });
    await sleep(20);
    const hurried = await rerankRun(stage, { ...calendar, deadlineMs: 250 });
    expect(hurried.outcome).toMatchObject({ ranker: 'bm25', degraded: 'timeout', stats: { shared: true } });
    // Its timer is late by the event loop's delay meanwhile (a busy machine's); waiting for the shared
    // call would have answered it ~580 ms in.
    expect(hurried.elapsed).toBeLessThan(250 + 100 + hurried.maxLagMs);
    expect((await leader).outcome).toMatchObject({ ranker: 'llm', stats: { shared: false } });
    expect(double.requests).toHaveLength(1);
  });

  it('does not join across projects', async () => {
    double.setScript({ behaviour: { kind: 'grade' }, delayMs: 100 });
    const stage = reranker();
    await Promise.all([
      rerankRun(stage, { ...calendar, projectId: 'a' }),
      rerankRun(stage, { ...calendar, projectId: 'b' }),
    ]);
    expect(double.requests).toHaveLength(2);
  });

  it('stops the model call when every waiting request has gone', async () => {
    double.setScript({ behaviour: { kind: 'hang' } });
    const stage = reranker();
    const controller = new AbortController();
    const run = rerankRun(stage, { ...calendar, signal: controller.signal, deadlineMs: 5_000 });
    await sleep(50);
    controller.abort();
    const { outcome, elapsed, maxLagMs } = await run;
    expect(outcome).toMatchObject({ ranker: 'bm25', degraded: 'timeout' });
    expect(elapsed).toBeLessThan(1_000 + maxLagMs); // the abort's, not the 5 s deadline's
    for (let wait = 0; wait < 40 && double.requests[0]?.closedAt === undefined; wait += 1) await sleep(25);
    expect(double.requests[0]).toMatchObject({ completed: false }); // the connection was given up
    expect(double.requests[0]!.closedAt).toBeDefined();
  });
});
