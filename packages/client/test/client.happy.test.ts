import { afterEach, describe, expect, it } from 'vitest';
import { COMPRESSION_THRESHOLD, createCatalogSearchClient, DEFAULT_DEADLINE_MARGIN_MS } from '@catalog-search/client';
import { cloudAnswer, REQUEST, sendJson, startServer, type LoopbackServer } from './loopback.js';
import { testClient } from './test-client.js';

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('cloud answers', () => {
  it('returns the service answer with source "cloud" and sends the contract headers', async () => {
    server = await startServer((_req, res) => sendJson(res, 200, cloudAnswer('srv-42')));
    const client = createCatalogSearchClient({
      baseUrl: server.baseUrl,
      token: 'secret-jwt',
      projectId: 'proj_1',
      userAgent: 'my-router/1.2',
      timeoutMs: 3000,
    });
    const outcome = await client.search(REQUEST, { requestId: 'router-req-1' });

    expect(outcome).toEqual({ ...cloudAnswer('srv-42'), source: 'cloud' });
    expect(outcome.fallbackReason).toBeUndefined();
    const [seen] = server.seen;
    expect(seen?.method).toBe('POST');
    expect(seen?.url).toBe('/v1/catalog/search');
    expect(seen?.body).toEqual(REQUEST);
    expect(seen?.headers).toMatchObject({
      authorization: 'Bearer secret-jwt',
      'content-type': 'application/json',
      'x-project-id': 'proj_1',
      'x-request-id': 'router-req-1',
      'user-agent': 'my-router/1.2',
    });
    // The remaining budget minus the network margin, as an integer number of ms.
    const deadline = seen?.headers['x-search-deadline-ms'];
    expect(deadline).toMatch(/^\d+$/);
    expect(Number(deadline)).toBeLessThanOrEqual(3000 - DEFAULT_DEADLINE_MARGIN_MS);
    expect(Number(deadline)).toBeGreaterThan(3000 - DEFAULT_DEADLINE_MARGIN_MS - 1000);
  });

  it('generates a fresh request id per search when none is given', async () => {
    server = await startServer((_req, res) => sendJson(res, 200, cloudAnswer()));
    const client = testClient(server.baseUrl);
    await client.search(REQUEST);
    await client.search(REQUEST);
    const [first, second] = server.seen.map((seen) => seen.headers['x-request-id']);
    expect(first).toMatch(/^[0-9a-f-]{32,36}$/);
    expect(second).not.toBe(first);
    expect(server.seen[0]?.headers['x-project-id']).toBeUndefined();
  });

  it('calls getToken() for every search, so rotated tokens are used', async () => {
    server = await startServer((_req, res) => sendJson(res, 200, cloudAnswer()));
    let n = 0;
    const client = createCatalogSearchClient({ baseUrl: server.baseUrl, getToken: async () => `token-${++n}` });
    await client.search(REQUEST);
    await client.search(REQUEST);
    expect(server.seen.map((seen) => seen.headers.authorization)).toEqual(['Bearer token-1', 'Bearer token-2']);
  });

  it('joins baseUrl and a configured path, with or without slashes', async () => {
    server = await startServer((_req, res) => sendJson(res, 200, cloudAnswer()));
    const client = createCatalogSearchClient({
      baseUrl: `${server.baseUrl}/api/`,
      path: 'v1/catalog/search',
      token: 't',
    });
    await client.search(REQUEST);
    expect(server.seen[0]?.url).toBe('/api/v1/catalog/search');
  });

  it('accepts fields it does not know in results and meta (a newer service)', async () => {
    const answer = cloudAnswer();
    const extended = {
      results: answer.results.map((result) => ({ ...result, score: 12.5 })),
      meta: { ...answer.meta, tookMs: 38 },
      warnings: [],
    };
    server = await startServer((_req, res) => sendJson(res, 200, extended));
    const client = testClient(server.baseUrl);
    const outcome = await client.search(REQUEST);
    expect(outcome.source).toBe('cloud');
    expect(outcome.results[0]?.toolKey).toBe('jira:create_ticket');
  });

  it('uses a slow answer that arrives within the budget (after the half-budget warm-up of the local index)', async () => {
    server = await startServer((_req, res) => {
      setTimeout(() => sendJson(res, 200, cloudAnswer()), 1100);
    });
    const client = testClient(server.baseUrl, { timeoutMs: 2000 });
    const outcome = await client.search(REQUEST);
    expect(outcome.source).toBe('cloud');
    expect(outcome.results).toEqual(cloudAnswer().results);
  });

  describe('request compression', () => {
    const big = {
      query: ['create an issue'],
      tools: Array.from({ length: 400 }, (_, i) => ({
        toolKey: `srv${i}:tool_${i}`,
        toolName: `tool_${i}`,
        serverName: `Server ${i}`,
        description: `Tool number ${i} does one particular thing with issues, files and messages.`,
      })),
    };

    it('gzips a body of 32 KiB or more, and it arrives intact', async () => {
      expect(JSON.stringify(big).length).toBeGreaterThan(COMPRESSION_THRESHOLD);
      server = await startServer((_req, res) =>
        sendJson(res, 200, { results: [], meta: { ranker: 'bm25', requestId: 'r' } }),
      );
      const client = testClient(server.baseUrl);
      expect((await client.search(big)).source).toBe('cloud');
      expect(server.seen[0]?.headers['content-encoding']).toBe('gzip');
      expect(server.seen[0]?.bytes).toBeLessThan(JSON.stringify(big).length / 3);
      expect(server.seen[0]?.body).toEqual(big);
    });

    it.each([
      ['with the breaker', {}],
      ['without a breaker', { breaker: false as const }],
    ])(
      'sends plain JSON while the cloud is failing, and compresses again once it answers (%s)',
      async (_case, options) => {
        let fail = true;
        server = await startServer((_req, res) =>
          fail ? sendJson(res, 500, {}) : sendJson(res, 200, { results: [], meta: { ranker: 'bm25', requestId: 'r' } }),
        );
        const client = testClient(server.baseUrl, options);
        await client.search(big);
        await client.search(big);
        fail = false;
        await client.search(big);
        await client.search(big);
        expect(server.seen.map((seen) => seen.headers['content-encoding'])).toEqual([
          'gzip',
          undefined,
          undefined,
          'gzip',
        ]);
      },
    );

    it('sends small bodies, and any body with compression "none", as plain JSON', async () => {
      server = await startServer((_req, res) =>
        sendJson(res, 200, { results: [], meta: { ranker: 'bm25', requestId: 'r' } }),
      );
      await testClient(server.baseUrl).search(REQUEST);
      await testClient(server.baseUrl, { compression: 'none' }).search(big);
      expect(server.seen.map((seen) => seen.headers['content-encoding'])).toEqual([undefined, undefined]);
      expect(server.seen[1]?.body).toEqual(big);
    });
  });

  it('uses an injected fetch', async () => {
    const calls: string[] = [];
    const client = testClient('https://search.invalid', {
      fetch: async (url) => {
        calls.push(url);
        return new Response(JSON.stringify(cloudAnswer()), { status: 200 });
      },
    });
    const outcome = await client.search(REQUEST);
    expect(outcome.source).toBe('cloud');
    expect(calls).toEqual(['https://search.invalid/v1/catalog/search']);
  });
});
