import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  COMPRESSION_THRESHOLD,
  createCatalogSearchClient,
  type CatalogSearchClient,
  PermissionDeniedError,
  type FallbackEvent,
  type FetchLike,
  type SearchOutcome,
} from '@catalog-search/client';
import { MAX_NESTING_DEPTH, type ToolListSearchRequest, type ToolInfo } from '@catalog-search/core';
import { startApp, testConfig, type RunningApp } from '../helpers/app.js';
import { testToken } from '../helpers/tokens.js';
import { manyTools } from '../fixtures/tools.js';
import { closedPortUrl } from '../../packages/client/test/loopback.js';
import { BENCH_DIR, loadCatalog as loadBenchCatalog } from '../../eval/datasets.js';

// The client against the real service (buildApp on a loopback port, tokens signed at run time),
// and the parity check: the client's local fallback ranks exactly as the service's lexical stage.

// Real MCP catalogs live beside the repo in ../shared/bench (read at run time, never copied). A
// clone without them still runs every test here on the bundled sample request; the parity cases
// over real catalogs run when the data is present.
const haveBenchData = existsSync(join(BENCH_DIR, 'livemcpbench', 'catalog.jsonl'));
const sampleRequest = JSON.parse(
  readFileSync(new URL('../../examples/search-request.json', import.meta.url), 'utf8'),
) as ToolListSearchRequest;

/** A catalog's tools with only the fields a router sends, and its queries. */
function loadCatalog(folder: string, maxTools: number): { tools: ToolInfo[]; queries: string[] } {
  return loadBenchCatalog(folder, maxTools) ?? { tools: sampleRequest.tools, queries: sampleRequest.query };
}

let service: RunningApp;
beforeAll(async () => {
  service = await startApp(testConfig());
});
afterAll(async () => {
  await service.close();
});

describe('client → real service', () => {
  it('answers from the cloud with the lexical ranking when no reranker is configured', async () => {
    const client = createCatalogSearchClient({
      baseUrl: service.url,
      token: testToken({ projectId: 'project-a' }),
      projectId: 'project-a',
    });
    const outcome = await client.search(sampleRequest, { requestId: 'router-1' });
    expect(outcome.source).toBe('cloud');
    expect(outcome.fallbackReason).toBeUndefined();
    expect(outcome.meta).toMatchObject({ ranker: 'bm25', requestId: 'router-1' });
    expect(outcome.results.length).toBeGreaterThan(0);
    expect(outcome.results.length).toBeLessThanOrEqual(sampleRequest.maxResults ?? 20);
  });

  it('sends a large tool list gzip-compressed and the service answers it, streamed (chunked) or buffered', async () => {
    const request: ToolListSearchRequest = { ...sampleRequest, tools: manyTools(400) };
    expect(JSON.stringify(request).length).toBeGreaterThan(COMPRESSION_THRESHOLD);
    // The runtime's fetch, noting the body it was given; one of them refuses streams, as Chromium
    // does over HTTP/1.1, so that client sends the same gzipped body buffered.
    const bodies: string[] = [];
    const observed =
      (refuseStreams: boolean): FetchLike =>
      (url, init) => {
        const streamed = init.body instanceof ReadableStream;
        bodies.push(`${streamed ? 'stream' : 'buffer'}:${new Headers(init.headers).get('content-encoding')}`);
        return streamed && refuseStreams ? Promise.reject(new TypeError('Failed to fetch')) : fetch(url, init);
      };
    const options = { baseUrl: service.url, token: testToken({ projectId: 'project-a' }), fallback: false };
    const streamed = createCatalogSearchClient({ ...options, fetch: observed(false) });
    const buffered = createCatalogSearchClient({ ...options, fetch: observed(true) });
    const plain = createCatalogSearchClient({ ...options, compression: 'none' });
    const [fromStreamed, fromBuffered, fromPlain] = [
      await streamed.search(request),
      await buffered.search(request),
      await plain.search(request),
    ];
    expect(bodies).toEqual(['stream:gzip', 'stream:gzip', 'buffer:gzip']);
    expect(fromStreamed.source).toBe('cloud');
    expect(fromStreamed.results.length).toBeGreaterThan(0);
    expect(fromStreamed.results).toEqual(fromPlain.results);
    expect(fromBuffered.results).toEqual(fromPlain.results);
  });

  it('reaches the same operation under the versioned path /v1/catalog/search', async () => {
    const seed = createCatalogSearchClient({
      baseUrl: service.url,
      token: testToken({ projectId: 'project-a' }),
      fallback: false,
    });
    const v1 = createCatalogSearchClient({
      baseUrl: service.url,
      path: '/v1/catalog/search',
      token: testToken({ projectId: 'project-a' }),
      fallback: false,
    });
    const fromV1 = await v1.search(sampleRequest);
    expect(fromV1.source).toBe('cloud');
    expect(fromV1.results).toEqual((await seed.search(sampleRequest)).results);
  });

  it('takes the answer for a tool whose annotations nest as deep as the service accepts', async () => {
    const client = createCatalogSearchClient({
      baseUrl: service.url,
      token: testToken({ projectId: 'project-a' }),
      fallback: false,
    });
    let annotations: Record<string, unknown> = { readOnlyHint: true };
    for (let level = 1; level < MAX_NESTING_DEPTH; level += 1) annotations = { nested: annotations };
    const tools: ToolInfo[] = [
      { toolKey: 'deep:read_file', toolName: 'read_file', serverName: 'Deep', description: 'Read a file', annotations },
    ];
    const outcome = await client.search({ query: ['read a file'], tools });
    expect(outcome.meta.skippedCount).toBeUndefined();
    expect(outcome.results[0]).toMatchObject({ toolKey: 'deep:read_file', annotations });
  });

  it('uses a rotating token through getToken()', async () => {
    const client = createCatalogSearchClient({
      baseUrl: service.url,
      getToken: async () => testToken({ projectId: 'project-a' }),
    });
    const { tools } = sampleRequest;
    expect((await client.search({ query: ['read a file'], tools })).source).toBe('cloud');
  });

  it('falls back with "forbidden" when X-Project-Id does not match the token, and reports the problem body', async () => {
    const events: FallbackEvent[] = [];
    const client = createCatalogSearchClient({
      baseUrl: service.url,
      token: testToken({ projectId: 'project-a' }),
      projectId: 'project-b',
      onFallback: (event) => events.push(event),
    });
    const { tools } = sampleRequest;
    const outcome = await client.search({ query: ['read a file'], tools }, { requestId: 'router-2' });
    expect(outcome.source).toBe('local');
    expect(outcome.fallbackReason).toBe('forbidden');
    const error = events[0]!.error as PermissionDeniedError;
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect(error.problem).toMatchObject({ status: 403 });
    expect(typeof error.problem?.code).toBe('string');
    expect(error.requestId).toBe('router-2');
    expect(events[0]!.configurationProblem).toBe(true);
  });

  it('falls back with "unauthorized" on an expired token; with fallback: false it rejects with AuthenticationError', async () => {
    const expired = testToken({ projectId: 'project-a', claims: { iat: 1_000, exp: 2_000 } });
    const { tools } = sampleRequest;
    const lenient = createCatalogSearchClient({ baseUrl: service.url, token: expired });
    expect((await lenient.search({ query: ['read a file'], tools })).fallbackReason).toBe('unauthorized');

    const strict = createCatalogSearchClient({ baseUrl: service.url, token: expired, fallback: false });
    const error = await strict.search({ query: ['read a file'], tools }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).status).toBe(401);
  });
});

describe('client → real service with a per-project rate limit', () => {
  it('falls back with "rate_limited" and keeps the cloud off for the Retry-After the service sent', async () => {
    const limited = await startApp(testConfig({ rateLimitPerMinute: 1 }));
    try {
      const clock = { now: 5_000_000 };
      const client = createCatalogSearchClient({
        baseUrl: limited.url,
        token: testToken({ projectId: 'project-a' }),
        breaker: { now: () => clock.now },
      });
      expect((await client.search(sampleRequest)).source).toBe('cloud');
      const limitedOutcome = await client.search(sampleRequest);
      expect(limitedOutcome.fallbackReason).toBe('rate_limited');
      expect(limitedOutcome.results.length).toBeGreaterThan(0);
      const circuit = client.circuit();
      expect(circuit.state).toBe('open');
      // The service's window is a minute: Retry-After is at most 60 s, and more than nothing.
      expect(circuit.retryAt! - clock.now).toBeGreaterThan(0);
      expect(circuit.retryAt! - clock.now).toBeLessThanOrEqual(60_000);
      expect((await client.search(sampleRequest)).fallbackReason).toBe('circuit_open');
    } finally {
      await limited.close();
    }
  });
});

describe("parity: the local fallback ranks exactly as the service's lexical stage", () => {
  const sampleCases: [string, ToolListSearchRequest][] = [
    ['the bundled sample request', sampleRequest],
    [
      'the sample, each sub-query alone, all results',
      { ...sampleRequest, query: [sampleRequest.query[0]!], maxResults: 100 },
    ],
  ];

  it.each(sampleCases)('%s', async (_name, request) => expectParity(request));

  const livemcp = loadCatalog('livemcpbench', Infinity);
  // Smithery descriptions run long, so the 2,000-character description cut is exercised too.
  const smithery = loadCatalog('smithery_catalog', 800);
  const catalogCases: [string, ToolListSearchRequest][] = [
    ...livemcp.queries
      .slice(0, 6)
      .map((query, i): [string, ToolListSearchRequest] => [
        `livemcpbench q${i}`,
        { query: [query], tools: livemcp.tools },
      ]),
    [
      'multi-step with context',
      {
        query: ['find the current stock price', 'write a word document with the figures'],
        context: 'Preparing a weekly finance summary.',
        tools: livemcp.tools,
        maxResults: 7,
      },
    ],
    ['maxResults 100', { query: ['search'], tools: livemcp.tools, maxResults: 100 }],
    ['long descriptions', { query: ['scrape a web page to markdown'], tools: smithery.tools }],
    ['identifier-style query', { query: ['get_current_stock_price'], tools: livemcp.tools }],
  ];

  let cloudClient: CatalogSearchClient;
  let local: CatalogSearchClient;
  beforeAll(async () => {
    cloudClient = createCatalogSearchClient({
      baseUrl: service.url,
      token: testToken({ projectId: 'project-a' }),
      fallback: false,
    });
    // A closed port: every search falls back at once (breaker off, so every one is a fresh fallback).
    local = createCatalogSearchClient({ baseUrl: await closedPortUrl(), token: 'unused', breaker: false });
  });

  it('a Japanese request on the sample list: gcal:create_event first, through the service and the fallback alike', async () => {
    const request: ToolListSearchRequest = { ...sampleRequest, query: ['カレンダーに明日の会議を追加して'] };
    await expectParity(request);
    const { results } = await cloudClient.search(request);
    expect(results[0]!.toolKey).toBe('gcal:create_event');
    // The words that matched, each through its translation; never the whole request repeated.
    expect(results[0]!.explanation).toContain('"meeting" (会議)');
    expect(results[0]!.explanation).not.toContain(request.query[0]);
  });

  it.skipIf(!haveBenchData).each(catalogCases)('%s (../shared/bench)', async (_name, request) => expectParity(request));

  async function expectParity(request: ToolListSearchRequest): Promise<void> {
    const fromCloud: SearchOutcome = await cloudClient.search(request);
    const fromLocal: SearchOutcome = await local.search(request);
    expect(fromCloud.source).toBe('cloud');
    expect(fromCloud.meta.ranker).toBe('bm25');
    expect(fromLocal.source).toBe('local');
    expect(fromLocal.results.length).toBeGreaterThan(0);
    // Same tools, same order, same relevance, same explanations: the whole result list.
    expect(fromLocal.results).toEqual(fromCloud.results);
  }
});
