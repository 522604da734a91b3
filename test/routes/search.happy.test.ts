import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolSetId, type SearchResponse } from '@catalog-search/core';
import { startApp, testConfig, type RunningApp } from '../helpers/app.js';
import { searchAs, type SearchAsOptions } from '../helpers/search.js';
import { testToken } from '../helpers/tokens.js';
import { manyTools, sampleRequest, sampleTools } from '../fixtures/tools.js';

let server: RunningApp;
beforeAll(async () => {
  server = await startApp(testConfig());
});
afterAll(() => server.close());

// The seed path: the same operation as /v1 (test/openapi/v1-replay.test.ts holds both to one contract).
const search = (body: unknown, options: SearchAsOptions = {}) =>
  searchAs<SearchResponse>(server, body, { path: '/catalog/search', ...options });

describe('POST /catalog/search over loopback HTTP (happy path)', () => {
  it('ranks the bundled sample list: calendar and Slack tools first, relevance sorted, meta.ranker bm25', async () => {
    const response = await search(sampleRequest);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const { body } = response;
    expect(body.results.length).toBeGreaterThan(0);
    expect(body.results.length).toBeLessThanOrEqual(sampleRequest.maxResults!);
    const servers = body.results.map((result) => result.serverName);
    expect(servers).toContain('Google Calendar');
    expect(servers).toContain('Slack');
    const relevances = body.results.map((result) => result.relevance);
    expect([...relevances].sort((a, b) => b - a)).toEqual(relevances);
    for (const result of body.results) {
      expect(result.relevance).toBeGreaterThanOrEqual(0);
      expect(result.relevance).toBeLessThanOrEqual(1);
      const sent = sampleTools.find((tool) => tool.toolKey === result.toolKey)!;
      expect(result).toMatchObject({
        toolName: sent.toolName,
        serverName: sent.serverName,
        description: sent.description,
      });
      // inputSchema is not echoed back: results carry what a router shows, not the whole tool.
      expect(result).not.toHaveProperty('inputSchema');
    }
    // meta.toolSet is the id the client computes for the same list (core's toolSetId).
    expect(body.meta).toEqual({
      ranker: 'bm25',
      semantic: 'off',
      requestId: response.headers.get('x-request-id'),
      toolSet: await toolSetId(sampleTools),
    });
  });

  it('returns at most maxResults (default 20) and finds a tool by its identifier', async () => {
    const tools = manyTools(300);
    const limited = (await search({ query: ['list directory files'], tools, maxResults: 3 })).body;
    expect(limited.results).toHaveLength(3);
    const unlimited = (await search({ query: ['list directory files'], tools })).body;
    expect(unlimited.results).toHaveLength(20);
    expect(unlimited.results[0]!.toolName).toBe('list_directory');
  });

  it('answers an empty result list when nothing matches', async () => {
    const { body } = await search({ query: ['zzzqqq'], tools: sampleTools });
    expect(body.results).toEqual([]);
  });

  it('accepts unknown fields inside a tool (MCP tool objects as they are) and returns long descriptions as sent', async () => {
    const long = `Posts a message to a Slack channel. ${'Lorem ipsum dolor sit amet. '.repeat(400)}`;
    const tools = [
      { ...sampleTools[10]!, description: long, outputSchema: { type: 'object' }, _meta: { vendor: 'x' } },
      ...sampleTools.slice(0, 5),
    ];
    const response = await search({ query: ['post a slack message'], tools });
    expect(response.status).toBe(200);
    const { body } = response;
    expect(body.results[0]!.toolKey).toBe(sampleTools[10]!.toolKey);
    expect(body.results[0]!.description).toBe(long);
  });

  it('accepts a gzip, deflate or br compressed body (and identity)', async () => {
    const json = Buffer.from(JSON.stringify(sampleRequest));
    for (const [encoding, compressed] of [
      ['gzip', gzipSync(json)],
      ['deflate', deflateSync(json)],
      ['br', brotliCompressSync(json)],
      ['identity', json],
    ] as const) {
      const response = await search(compressed, { headers: { 'content-encoding': encoding } });
      expect(response.status, encoding).toBe(200);
      expect(response.body.results.length).toBeGreaterThan(0);
    }
  });

  it('honours a sane X-Request-Id and echoes it in the header and meta', async () => {
    const response = await search(sampleRequest, { headers: { 'x-request-id': 'router-req-42.a' } });
    expect(response.headers.get('x-request-id')).toBe('router-req-42.a');
    expect(response.body.meta.requestId).toBe('router-req-42.a');
  });

  it('replaces an insane X-Request-Id with a generated UUID', async () => {
    const response = await search(sampleRequest, { headers: { 'x-request-id': 'bad id with spaces and {json}' } });
    const id = response.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.body.meta.requestId).toBe(id);
  });

  it('accepts a client deadline header lower than the configured one', async () => {
    const response = await search(sampleRequest, { deadlineMs: 1500 });
    expect(response.status).toBe(200);
  });

  it('writes one audit line per search with the agreed fields, and never the token', async () => {
    const requestId = 'audit-check-1';
    const token = testToken();
    await search(
      { query: ['create an issue', 'open a pull request'], tools: sampleTools, maxResults: 4 },
      { token, headers: { 'x-request-id': requestId } },
    );
    const audit = server.logs.lines.filter((line) => line.audit === 'search' && line.requestId === requestId);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      projectId: 'project-a',
      tools: sampleTools.length,
      queries: 2,
      ranker: 'bm25',
      results: 4,
    });
    expect(typeof audit[0]!.durationMs).toBe('number');
    const raw = server.logs.raw.find((line) => line.includes('"audit":"search"') && line.includes(requestId))!;
    expect(raw.match(/"requestId"/g)).toHaveLength(1);
    expect(raw.match(/"projectId"/g)).toHaveLength(1);
    expect(server.logs.raw.join('\n')).not.toContain(token.split('.')[2]);
  });
});

describe('health probes', () => {
  it('GET /healthz and /readyz answer 200 without a token', async () => {
    expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ status: 'ok' });
    expect(await (await fetch(`${server.url}/readyz`)).json()).toEqual({ status: 'ready' });
  });

  it('/readyz answers 503 problem+json once shutdown has begun, while /healthz stays 200', async () => {
    const other = await startApp(testConfig());
    try {
      other.app.lifecycle.shuttingDown = true;
      const ready = await fetch(`${other.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(ready.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(await ready.json()).toMatchObject({ status: 503, code: 'SHUTTING_DOWN' });
      expect((await fetch(`${other.url}/healthz`)).status).toBe(200);
    } finally {
      await other.close();
    }
  });
});

describe('CORS (CORS_ORIGINS)', () => {
  it('answers a preflight for an allowed origin without a token, and nothing for others', async () => {
    const { buildApp } = await import('../../src/app.js');
    const app = buildApp(testConfig({ corsOrigins: ['https://router.example'] }), { logStream: server.logs });
    const preflight = (origin: string) =>
      app.inject({
        method: 'OPTIONS',
        url: '/catalog/search',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization,content-type',
        },
      });
    const allowed = await preflight('https://router.example');
    expect(allowed.statusCode).toBe(204);
    expect(allowed.headers['access-control-allow-origin']).toBe('https://router.example');
    expect(String(allowed.headers['access-control-allow-headers'])).toContain('authorization');
    const other = await preflight('https://evil.example');
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    const search = await app.inject({
      method: 'POST',
      url: '/catalog/search',
      headers: { origin: 'https://router.example', authorization: `Bearer ${testToken()}` },
      payload: sampleRequest,
    });
    expect(search.statusCode).toBe(200);
    expect(search.headers['access-control-expose-headers']).toContain('x-request-id');
    await app.close();
  });
});
