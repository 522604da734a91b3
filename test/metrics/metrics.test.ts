// GET /metrics scraped after known traffic: each series counts what was done, labels carry no
// project ids, and the endpoint can be moved to its own port or turned off.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type AddressInfo } from 'node:net';
import { MemoryBudget } from '../../src/memory/exports.js';
import { listenForMetrics } from '../../src/metrics/metrics-server.js';
import { startApp, testConfig, type RunningApp } from '../helpers/app.js';
import { sampleRequest } from '../fixtures/tools.js';
import { startOpenAITestServer, type OpenAITestServer } from '../helpers/openai-test-server.js';
import { searchAs } from '../helpers/search.js';

const PROJECT = 'project-metrics-7f3a';

/** The value of one series (exact name and labels as Prometheus prints them), 0 when absent. */
function series(text: string, name: string): number {
  const line = text.split('\n').find((entry) => entry.startsWith(`${name} `));
  return line === undefined ? 0 : Number(line.slice(name.length + 1));
}

async function search(target: RunningApp, body: unknown): Promise<number> {
  return (await searchAs(target, body, { projectId: PROJECT })).status;
}

let model: OpenAITestServer;
beforeAll(async () => {
  model = await startOpenAITestServer();
});
afterAll(() => model.close());

describe('GET /metrics', () => {
  it('counts searches, references, rate limits, LLM calls and request durations as they happened', async () => {
    const server = await startApp(testConfig({ rateLimitPerMinute: 5 }));
    const llm = await startApp(
      testConfig({
        llm: {
          baseUrl: model.baseURL,
          apiKey: 'k',
          model: 'm',
          promptTokenBudget: 7000,
          cacheTtlMs: 60_000,
          cacheEntriesPerProject: 10,
        },
      }),
    );
    try {
      expect(await search(server, sampleRequest)).toBe(200);
      expect(await search(server, { ...sampleRequest, query: ['slack'] })).toBe(200);
      const toolSet = (await searchAs<{ meta: { toolSet: string } }>(server, sampleRequest, { projectId: PROJECT }))
        .body.meta.toolSet;
      expect(await search(server, { query: ['calendar'], toolSet })).toBe(200);
      expect(await search(server, { query: ['calendar'], toolSet: 'B'.repeat(43) })).toBe(409);
      expect(await search(server, sampleRequest)).toBe(429); // the sixth in a minute

      const text = await (await fetch(`${server.url}/metrics`)).text();
      expect(series(text, 'catalog_search_searches_total{ranker="bm25",degraded="none"}')).toBe(4);
      expect(series(text, 'catalog_search_tools_per_search_count')).toBe(4);
      expect(series(text, 'catalog_search_tools_per_search_sum')).toBe(4 * sampleRequest.tools.length);
      expect(series(text, 'catalog_search_tool_set_references_total{result="local"}')).toBe(1);
      expect(series(text, 'catalog_search_tool_set_references_total{result="miss"}')).toBe(1);
      expect(series(text, 'catalog_search_rate_limited_total')).toBe(1);
      // The project's analyses: made by the first search, kept for the three after it (the 409 and 429 rank nothing).
      expect(series(text, 'catalog_search_cache_requests_total{cache="rank",result="miss"}')).toBe(1);
      expect(series(text, 'catalog_search_cache_requests_total{cache="rank",result="hit"}')).toBe(3);
      expect(
        series(
          text,
          'catalog_search_http_request_duration_seconds_count{method="POST",route="/v1/catalog/search",status_code="200"}',
        ),
      ).toBe(4);
      expect(
        series(
          text,
          'catalog_search_http_request_duration_seconds_count{method="POST",route="/v1/catalog/search",status_code="409"}',
        ),
      ).toBe(1);
      expect(text).toContain('nodejs_eventloop_lag_seconds');
      expect(text).not.toContain(PROJECT);

      const body = { ...sampleRequest, query: ['create a calendar event'] };
      expect(await search(llm, body)).toBe(200);
      expect(await search(llm, body)).toBe(200); // from the answer cache
      const llmText = await (await fetch(`${llm.url}/metrics`)).text();
      expect(series(llmText, 'catalog_search_searches_total{ranker="llm",degraded="none"}')).toBe(2);
      expect(series(llmText, 'catalog_search_llm_call_duration_seconds_count{outcome="ok"}')).toBe(1);
      expect(series(llmText, 'catalog_search_cache_requests_total{cache="llm",result="hit"}')).toBe(1);
      expect(series(llmText, 'catalog_search_cache_requests_total{cache="llm",result="miss"}')).toBe(1);
      expect(series(llmText, 'catalog_search_llm_tokens_total{kind="prompt"}')).toBeGreaterThan(0);
      expect(series(llmText, 'catalog_search_llm_tokens_total{kind="completion"}')).toBeGreaterThan(0);
    } finally {
      await Promise.all([server.close(), llm.close()]);
    }
  });

  it('counts searches refused by the fair share by limit, and shows the memory budget by cache', async () => {
    // Work budget: 60 tools × sub-queries per minute with a 10 s burst, so the first search passes and
    // runs the budget into debt; the next is refused.
    const memory = new MemoryBudget({ maxBytes: 64 * 1024 * 1024, projectShare: 0.25 });
    const server = await startApp(
      testConfig({ fairShare: { maxInFlight: 0, maxWaiting: 0, workPerMinute: 60, bytesPerMinute: 0 } }),
      { memory },
    );
    try {
      expect(await search(server, sampleRequest)).toBe(200);
      expect(await search(server, sampleRequest)).toBe(429);
      const text = await (await fetch(`${server.url}/metrics`)).text();
      expect(series(text, 'catalog_search_cost_limited_total{limit="work"}')).toBe(1);
      expect(series(text, 'catalog_search_cost_limited_total{limit="in_flight"}')).toBe(0);
      expect(series(text, 'catalog_search_cache_budget_bytes')).toBe(64 * 1024 * 1024);
      const usage = memory.usage();
      expect(usage.byCache['rank-caches']).toBeGreaterThan(0); // the search's list, analysed and kept
      for (const [cache, bytes] of Object.entries(usage.byCache))
        expect(series(text, `catalog_search_cache_bytes{cache="${cache}"}`)).toBe(bytes);
    } finally {
      await server.close();
    }
  });

  it("counts the semantic stage's vector lookups per tool: misses for a new list, hits once it is embedded", async () => {
    const server = await startApp(
      testConfig({
        embeddings: {
          endpoint: { baseUrl: model.baseURL, apiKey: undefined, model: 'test-embed' },
          threads: 1,
          backgroundNice: 10,
          cacheBytes: 4 << 20,
          waitShare: 0.5,
          maxQueuedPerProject: 1000,
        },
      }),
    );
    try {
      const tools = sampleRequest.tools.length;
      expect(await search(server, sampleRequest)).toBe(200); // embeds the list (small: within the wait share)
      expect(await search(server, { ...sampleRequest, query: ['slack'] })).toBe(200);
      const text = await (await fetch(`${server.url}/metrics`)).text();
      expect(series(text, 'catalog_search_cache_requests_total{cache="vectors",result="miss"}')).toBe(tools);
      expect(series(text, 'catalog_search_cache_requests_total{cache="vectors",result="hit"}')).toBe(tools);
    } finally {
      await server.close();
    }
  });

  it('is absent from the API port when METRICS_PORT moves it, and served there', async () => {
    const server = await startApp(
      testConfig({ metrics: { enabled: true, path: '/internal/metrics', port: 1, host: '127.0.0.1' } }),
    );
    const metricsServer = await listenForMetrics(server.app.metrics.registry, {
      host: '127.0.0.1',
      port: 0,
      path: '/internal/metrics',
    });
    try {
      expect((await fetch(`${server.url}/internal/metrics`)).status).toBe(404);
      const { port } = metricsServer.address() as AddressInfo;
      const response = await fetch(`http://127.0.0.1:${port}/internal/metrics`);
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('catalog_search_searches_total');
      expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
      expect((await fetch(`http://127.0.0.1:${port}/internal/metrics?name[]=x`)).status).toBe(200);
      // A target `new URL` cannot parse gets 404, and the port keeps serving (no uncaught exception).
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () =>
          socket.end('GET //[ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
        );
        let answer = '';
        socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
        socket.on('end', () => resolve(answer));
        socket.on('error', reject);
      });
      expect(raw).toMatch(/^HTTP\/1\.1 404/);
      expect((await fetch(`http://127.0.0.1:${port}/internal/metrics`)).status).toBe(200);
    } finally {
      metricsServer.close();
      await server.close();
    }
  });

  it('is not served when METRICS_ENABLED=false', async () => {
    const server = await startApp(
      testConfig({ metrics: { enabled: false, path: '/metrics', port: undefined, host: '127.0.0.1' } }),
    );
    try {
      expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
    } finally {
      await server.close();
    }
  });
});
