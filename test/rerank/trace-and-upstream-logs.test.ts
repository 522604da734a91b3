// W3C trace context carried from a search to its model call and into the audit line; model
// failures logged at warn with their cause, at most once per cause every 10 s.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/index.js';
import { startApp, testConfig, type RunningApp } from '../helpers/app.js';
import { startOpenAITestServer, type OpenAITestServer } from '../helpers/openai-test-server.js';
import { everydayTools } from '../fixtures/tools.js';
import { closedPortUrl } from '../../packages/client/test/loopback.js';
import { searchAs } from '../helpers/search.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

const llmConfig = (baseUrl: string): Config =>
  testConfig({
    llm: {
      baseUrl,
      apiKey: 'k',
      model: 'test-model',
      promptTokenBudget: 7000,
      cacheTtlMs: 0,
      cacheEntriesPerProject: 10,
    },
  });

let model: OpenAITestServer;
let service: RunningApp;
beforeAll(async () => {
  model = await startOpenAITestServer();
  service = await startApp(llmConfig(model.baseURL));
});
afterAll(async () => {
  await service.close();
  await model.close();
});

async function search(
  target: RunningApp,
  headers: Record<string, string> = {},
  query = 'send an email',
): Promise<number> {
  return (await searchAs(target, { query: [query], tools: everydayTools }, { headers })).status;
}

const audits = (target: RunningApp) => target.logs.lines.filter((line) => line.audit === 'search');

describe('trace context', () => {
  it('carries the caller trace to the model call, as a child of this service, and logs the trace id', async () => {
    await search(service, { traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01`, tracestate: 'vendor=abc' });
    const sent = model.requests.at(-1)!.headers;
    const [version, traceId, parent, flags] = String(sent.traceparent).split('-');
    expect([version, traceId, flags]).toEqual(['00', TRACE_ID, '01']);
    expect(parent).toMatch(/^[0-9a-f]{16}$/);
    expect(parent).not.toBe(CALLER_SPAN);
    expect(sent.tracestate).toBe('vendor=abc');
    expect(audits(service).at(-1)).toMatchObject({ traceId: TRACE_ID, spanId: parent });
  });

  it('ignores a malformed traceparent (and its tracestate)', async () => {
    await search(
      service,
      { traceparent: `00-${'0'.repeat(32)}-${CALLER_SPAN}-01`, tracestate: 'vendor=abc' },
      'list calendar events',
    );
    const sent = model.requests.at(-1)!.headers;
    expect(sent.traceparent).toBeUndefined();
    expect(sent.tracestate).toBeUndefined();
    expect(audits(service).at(-1)).not.toHaveProperty('traceId');
  });
});

describe('trace context on the embeddings calls', () => {
  it("carries the caller trace to the query's and the list's embeddings calls, with this service's span as parent", async () => {
    const embeddings = await startOpenAITestServer();
    const semantic = await startApp(
      testConfig({
        embeddings: {
          endpoint: { baseUrl: embeddings.baseURL, apiKey: undefined, model: 'test-embed' },
          threads: 1,
          backgroundNice: 10,
          cacheBytes: 1024 * 1024,
          waitShare: 0.5,
          maxQueuedPerProject: 1000,
        },
      }),
    );
    try {
      expect(
        await search(
          semantic,
          { traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01`, tracestate: 'vendor=abc' },
          'what is on my plate tomorrow',
        ),
      ).toBe(200);
      const { spanId } = audits(semantic).at(-1)!;
      expect(spanId).toMatch(/^[0-9a-f]{16}$/);
      // The query's call and the list's background batch: both children of this search's span.
      expect(embeddings.embeddingHeaders.length).toBeGreaterThanOrEqual(2);
      for (const headers of embeddings.embeddingHeaders) {
        expect(headers.traceparent).toBe(`00-${TRACE_ID}-${String(spanId)}-01`);
        expect(headers.tracestate).toBe('vendor=abc');
      }

      // No trace context on the request: none on the embeddings call.
      expect(await search(semantic, {}, 'another request without a trace')).toBe(200);
      expect(embeddings.embeddingHeaders.at(-1)!.traceparent).toBeUndefined();
    } finally {
      await semantic.close();
      await embeddings.close();
    }
  });
});

describe('model failures in the logs', () => {
  it('logs an HTTP failure at warn with its status, once per 10 s however often it repeats', async () => {
    model.setScript({ behaviour: { kind: 'error', status: 503, message: 'overloaded' } });
    try {
      for (const query of ['send an email', 'post to slack', 'read a file'])
        expect(await search(service, {}, query)).toBe(200);
      const warnings = service.logs.lines.filter(
        (line) => line.level === 40 && (line.llm as { status?: number } | undefined)?.status === 503,
      );
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ llm: { reason: 'upstream_error', status: 503 } });
    } finally {
      model.setScript({ behaviour: { kind: 'grade' } });
    }
  });

  it('logs a connection failure with its network code', async () => {
    const unreachable = await startApp(llmConfig(`${await closedPortUrl()}/v1`));
    try {
      expect(await search(unreachable)).toBe(200);
      const warning = unreachable.logs.lines.find((line) => line.level === 40 && line.llm !== undefined);
      expect(warning).toMatchObject({ llm: { reason: 'upstream_error', code: 'ECONNREFUSED' } });
    } finally {
      await unreachable.close();
    }
  });
});
