import { rankTools, type RankedTool, type ToolListSearchRequest } from '@catalog-search/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryBudget } from '../../src/memory/exports.js';
import { ProjectRankCaches } from '../../src/lexical/rank-caches.js';
import { keepRequestTools } from '../../src/rerank/stage.js';
import type { Reranker, RerankOptions, RerankRequest } from '../../src/rerank/stage.js';
import { startApp, testConfig, type RunningApp } from '../helpers/app.js';
import { testToken } from '../helpers/tokens.js';
import { sampleTools } from '../fixtures/tools.js';
import { searchAs } from '../helpers/search.js';

/**
 * The rerank seam of the pipeline, exercised with small in-process rerankers (the real LLM stage is
 * its own module): answers in time → `ranker: llm`; late → lexical answer before the deadline with
 * `degraded: timeout`; failing → `degraded: internal_error`.
 */

async function searchWith(
  reranker: Reranker,
  headers: Record<string, string> = {},
  request: Partial<ToolListSearchRequest> = {},
) {
  const server = await startApp(testConfig({ search: { ...testConfig().search, deadlineMs: 2000 } }), { reranker });
  try {
    const started = Date.now();
    const response = await searchAs(
      server,
      { query: ['github pull request'], tools: sampleTools, maxResults: 3, ...request },
      { path: '/catalog/search', headers },
    );
    return { status: response.status, body: response.body, ms: Date.now() - started };
  } finally {
    await server.close();
  }
}

describe('search pipeline with a reranker', () => {
  it('uses the reranked order when it arrives in time, and hands over the lexical candidates and the deadline', async () => {
    let seen: { request: RerankRequest; options: RerankOptions } | undefined;
    const reranker: Reranker = {
      async rerank(request, options) {
        seen = { request, options };
        // Written across lines: on one line Prettier needs two passes to settle this chain.
        const ranked = [...request.lexical].reverse().map((entry) => ({
          tool: entry.tool,
          index: entry.index,
          score: entry.score,
          relevance: 0.5,
          explanation: 'reranked',
        }));
        return { ranker: 'llm', ranked };
      },
    };
    const { status, body } = await searchWith(reranker);
    expect(status).toBe(200);
    expect(body.meta.ranker).toBe('llm');
    expect(body.meta.degraded).toBeUndefined();
    expect(body.results).toHaveLength(3);
    expect(body.results[0].explanation).toBe('reranked');
    expect(seen!.request.lexical.length).toBeGreaterThan(3); // every match, not just the 3 answered
    expect(seen!.request.maxResults).toBe(3);
    expect(seen!.options.deadline.signal.aborted).toBe(false);
    expect(seen!.options.deadline.at).toBeGreaterThan(performance.now());
    expect(body.results[0].toolKey).toBe(seen!.request.lexical.at(-1)!.tool.toolKey);
  });

  it('answers with the lexical ranking before the deadline when the reranker is late', async () => {
    let aborted = false;
    const reranker: Reranker = {
      rerank: (_request, { deadline }) =>
        new Promise((resolve) => {
          deadline.signal.addEventListener('abort', () => {
            aborted = true;
          });
          setTimeout(() => resolve({ ranker: 'llm', ranked: [] }), 2000);
        }),
    };
    const { status, body, ms } = await searchWith(reranker, { 'x-search-deadline-ms': '150' });
    expect(status).toBe(200);
    expect(body.meta).toMatchObject({ ranker: 'bm25', degraded: 'timeout' });
    expect(body.results.length).toBeGreaterThan(0);
    expect(aborted).toBe(true);
    expect(ms).toBeLessThan(1500);
  });

  it('answers with the lexical ranking when the reranker fails', async () => {
    const reranker: Reranker = {
      rerank: async () => {
        throw new Error('model exploded');
      },
    };
    const { status, body } = await searchWith(reranker);
    expect(status).toBe(200);
    expect(body.meta).toMatchObject({ ranker: 'bm25', degraded: 'internal_error' });
    expect(JSON.stringify(body)).not.toContain('exploded');
  });

  it('aborts the rerank signal when the caller hangs up, long before the deadline', async () => {
    let abortedAfterMs: number | undefined;
    const reranker: Reranker = {
      rerank: (request, { deadline }) =>
        new Promise((resolve) => {
          const started = Date.now();
          deadline.signal.addEventListener('abort', () => {
            abortedAfterMs = Date.now() - started;
            resolve({ ranker: 'bm25', ranked: request.lexical, degraded: 'timeout' });
          });
        }),
    };
    const server = await startApp(testConfig(), { reranker });
    try {
      await expect(
        fetch(`${server.url}/catalog/search`, {
          method: 'POST',
          headers: { authorization: `Bearer ${testToken()}`, 'content-type': 'application/json' },
          body: JSON.stringify({ query: ['github pull request'], tools: sampleTools }),
          signal: AbortSignal.timeout(200),
        }),
      ).rejects.toThrow();
      for (let i = 0; i < 40 && abortedAfterMs === undefined; i += 1)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(abortedAfterMs).toBeDefined();
      expect(abortedAfterMs!).toBeLessThan(2000); // the deadline is 4000 ms
    } finally {
      await server.close();
    }
  });

  it('keepRequestTools drops invented, altered and duplicated tools', () => {
    const tools = sampleTools.slice(0, 3);
    const tool = (index: number): RankedTool => ({
      tool: sampleTools[index]!,
      index,
      score: 1,
      relevance: 1,
      explanation: '',
    });
    const altered: RankedTool = { ...tool(0), tool: { ...sampleTools[0]!, description: 'changed' } };
    expect(keepRequestTools([tool(2), tool(9), tool(2), altered, tool(1)], tools).map((t) => t.index)).toEqual([2, 1]);
  });
});

describe('per-project rank caches', () => {
  it('gives each project its own cache and forgets the least recently used project', () => {
    const caches = new ProjectRankCaches({
      projects: 2,
      toolsPerProject: 10,
      memory: new MemoryBudget({ maxBytes: 1 << 20, projectShare: 0.5 }),
    });
    const a = caches.for('a');
    expect(caches.for('a')).toBe(a);
    const b = caches.for('b');
    expect(b).not.toBe(a);
    caches.for('a');
    caches.for('c');
    expect(caches.has('a')).toBe(true);
    expect(caches.has('b')).toBe(false);
    expect(caches.projectCount).toBe(2);
  });

  it("accounts each project's cache in the memory budget, and a cache the budget evicts starts again empty", () => {
    const memory = new MemoryBudget({ maxBytes: 1024 * 1024, projectShare: 0.5 });
    const caches = new ProjectRankCaches({ projects: 10, toolsPerProject: 10_000, memory });
    // Each project's cache (with its vocabulary) under its share, two of them over the budget.
    const tools = (project: string) =>
      Array.from({ length: 150 }, (_, at) => ({
        toolKey: `${project}:t${at}`,
        toolName: `t${at}`,
        serverName: 'S',
        description: `${project} ${'word '.repeat(100)}`,
      }));
    for (const project of ['a', 'b', 'c', 'd']) {
      const cache = caches.for(project);
      rankTools({ query: ['word'], tools: tools(project) }, { cache });
      caches.measure(project, cache);
      expect(memory.projectBytes(project)).toBeGreaterThanOrEqual(cache.bytes);
    }
    expect(memory.usage().usedBytes).toBeLessThanOrEqual(1024 * 1024);
    expect(memory.usage().byCache['rank-caches']).toBeGreaterThan(0);
    expect(caches.has('a')).toBe(false); // trimmed for the later projects
    expect(caches.for('a').size).toBe(0);
  });
});

describe('the same tool list in two projects', () => {
  let server: RunningApp;
  beforeAll(async () => {
    server = await startApp(testConfig());
  });
  afterAll(() => server.close());

  it('ranks identically for each project (nothing cached for one changes the other)', async () => {
    const as = (projectId: string) =>
      searchAs<{ results: unknown[] }>(
        server,
        { query: ['send an email'], tools: sampleTools, maxResults: 5 },
        { path: '/catalog/search', projectId },
      ).then((response) => response.body.results);
    const first = await as('project-a');
    expect(await as('project-b')).toEqual(first);
    expect(await as('project-a')).toEqual(first);
  });
});
