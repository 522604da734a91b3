import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  CatalogSearchError,
  createCatalogSearchClient,
  InternalServerError,
  InvalidRequestError,
  InvalidResponseError,
  PermissionDeniedError,
  RateLimitError,
  type FallbackEvent,
} from '@catalog-search/client';
import type { SearchRequest } from '@catalog-search/core';
import {
  closedPortUrl,
  cloudAnswer,
  problem,
  REQUEST,
  sendJson,
  startServer,
  type Handler,
  type LoopbackServer,
} from './loopback.js';
import { testClient } from './test-client.js';

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function strictClient(handler: Handler, timeoutMs = 5000) {
  server = await startServer(handler);
  return testClient(server.baseUrl, { timeoutMs, fallback: false });
}

describe('fallback: false rejects with typed errors', () => {
  it.each([
    [400, BadRequestError],
    [401, AuthenticationError],
    [403, PermissionDeniedError],
    [429, RateLimitError],
    [500, InternalServerError],
    [502, InternalServerError],
    [418, APIError],
  ])('%i → %o', async (status, ErrorClass) => {
    const client = await strictClient((_req, res) =>
      sendJson(res, status, problem(status, 'Nope', `status ${status}`), { 'x-request-id': 'srv-9' }),
    );
    const error = await client.search(REQUEST).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ErrorClass);
    expect(error).toBeInstanceOf(APIError);
    expect(error).toBeInstanceOf(CatalogSearchError);
    expect(error).toMatchObject({ status, requestId: 'srv-9', problem: { detail: `status ${status}` } });
    expect((error as Error).message).toBe(`${status} Nope: status ${status}`);
  });

  it('a non-JSON error body still gives an APIError, with no problem', async () => {
    const client = await strictClient((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html>Bad gateway</html>');
    });
    const error = await client.search(REQUEST).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InternalServerError);
    expect((error as InternalServerError).problem).toBeUndefined();
  });

  it('an error body over 64 KiB is not read: an APIError with no problem, and a short message', async () => {
    // The error reaches the router's logs through onFallback on every search while the cloud fails.
    const client = await strictClient((_req, res) => sendJson(res, 500, problem(500, 'Nope', 'x'.repeat(1024 * 1024))));
    const error = await client.search(REQUEST).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InternalServerError);
    expect((error as InternalServerError).problem).toBeUndefined();
    expect((error as Error).message).toBe('500 status code (no problem details)');
  });

  it('a hang → APIConnectionTimeoutError', async () => {
    const client = await strictClient(() => {}, 300);
    const error = await client.search(REQUEST).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    expect((error as APIConnectionTimeoutError).timeoutMs).toBe(300);
  });

  it('a refused connection → APIConnectionError', async () => {
    const client = testClient(await closedPortUrl(), { fallback: false });
    const error = await client.search(REQUEST).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error).not.toBeInstanceOf(APIConnectionTimeoutError);
  });

  it('invalid JSON → InvalidResponseError', async () => {
    const client = await strictClient((_req, res) => res.end('not json'));
    const error = await client.search(REQUEST).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as InvalidResponseError).status).toBe(200);
  });
});

describe('requests that are never sent', () => {
  it.each<[string, unknown, string]>([
    ['an empty query list', { ...REQUEST, query: [] }, '/query'],
    ['tools and servers both', { ...REQUEST, servers: [] }, '/servers'],
    ['a filter.tools rule that is not RE2', { ...REQUEST, filter: { tools: ['/(?=a)/'] } }, '/filter/tools/0'],
    ['maxResults over the limit', { ...REQUEST, maxResults: 101 }, '/maxResults'],
    ['an unknown top-level field', { ...REQUEST, limit: 3 }, '/limit'],
    // The client sends references by itself; the service refuses a list and a reference together.
    ['a toolSet beside the tools', { ...REQUEST, toolSet: 'A'.repeat(43) }, '/toolSet'],
  ])('%s → InvalidRequestError naming the field, even with fallback on', async (_name, request, path) => {
    server = await startServer((_req, res) => sendJson(res, 200, cloudAnswer()));
    const events: FallbackEvent[] = [];
    const client = testClient(server.baseUrl, { onFallback: (e) => events.push(e) });
    const error = await client.search(request as SearchRequest).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect((error as InvalidRequestError).path).toBe(path);
    expect(server.seen).toHaveLength(0);
    expect(events).toHaveLength(0);
  });
});

describe('tools that cannot be used', () => {
  it('are skipped and reported in meta.skipped by the local fallback, as the service would', async () => {
    const tools = [
      ...REQUEST.tools,
      { toolKey: 'a:b', serverName: 'A' },
      { ...REQUEST.tools[0]!, description: 'a repeat' },
    ];
    const client = createCatalogSearchClient({ baseUrl: await closedPortUrl(), token: 't', breaker: false });
    const outcome = await client.search({ ...REQUEST, tools } as SearchRequest);
    expect(outcome.source).toBe('local');
    expect(outcome.meta.skippedCount).toBe(2);
    expect(outcome.meta.skipped).toEqual([
      {
        index: REQUEST.tools.length,
        toolKey: 'a:b',
        reason: `/tools/${REQUEST.tools.length}/toolName: must be a non-empty string`,
      },
      {
        index: REQUEST.tools.length + 1,
        toolKey: REQUEST.tools[0]!.toolKey,
        reason: `/tools/${REQUEST.tools.length + 1}: repeats the toolKey of tool 0; the first is kept`,
      },
    ]);
  });
});

describe('per-search options', () => {
  it('an invalid per-search timeoutMs throws instead of falling back', async () => {
    server = await startServer((_req, res) => sendJson(res, 200, cloudAnswer()));
    const client = testClient(server.baseUrl);
    await expect(client.search(REQUEST, { timeoutMs: -1 })).rejects.toThrow(/timeoutMs/);
    expect(server.seen).toHaveLength(0);
  });

  it('a per-search timeoutMs overrides the client budget', async () => {
    server = await startServer(() => {});
    const client = testClient(server.baseUrl, { timeoutMs: 60_000, fallback: false });
    const error = await client.search(REQUEST, { timeoutMs: 200 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    expect((error as APIConnectionTimeoutError).timeoutMs).toBe(200);
  });
});

describe('caller abort', () => {
  it('rejects with APIUserAbortError while the cloud hangs: no fallback, no breaker count', async () => {
    server = await startServer(() => {});
    const events: FallbackEvent[] = [];
    const client = testClient(server.baseUrl, {
      timeoutMs: 5000,
      onFallback: (event) => events.push(event),
    });
    const controller = new AbortController();
    const pending = client.search(REQUEST, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('user closed the tab')), 50);
    const error = await pending.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect((error as APIUserAbortError).cause).toBeInstanceOf(Error);
    expect(events).toHaveLength(0);
    expect(client.circuit()).toEqual({ state: 'closed', consecutiveFailures: 0 });
  });

  it('rejects at once when the signal is already aborted, without a request', async () => {
    server = await startServer((_req, res) => sendJson(res, 200, cloudAnswer()));
    const client = testClient(server.baseUrl);
    const error = await client.search(REQUEST, { signal: AbortSignal.abort() }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect(server.seen).toHaveLength(0);
  });

  it('leaves no listener on a long-lived caller signal', async () => {
    server = await startServer((_req, res) => sendJson(res, 200, cloudAnswer()));
    const client = testClient(server.baseUrl);
    const session = new AbortController();
    for (let i = 0; i < 5; i += 1) await client.search(REQUEST, { signal: session.signal });
    expect(getEventListeners(session.signal, 'abort')).toHaveLength(0);
  });
});

describe('configuration is checked when the client is created', () => {
  it.each([
    ['no credentials', { baseUrl: 'http://127.0.0.1:1' }, /missing credentials/],
    ['both token and getToken', { baseUrl: 'http://127.0.0.1:1', token: 't', getToken: () => 't' }, /not both/],
    ['an unparsable baseUrl', { baseUrl: 'not a url', token: 't' }, /baseUrl/],
    ['a non-http baseUrl', { baseUrl: 'file:///etc', token: 't' }, /http/],
    ['a zero timeout', { baseUrl: 'http://127.0.0.1:1', token: 't', timeoutMs: 0 }, /timeoutMs/],
    [
      'a fractional maxDescriptionChars',
      { baseUrl: 'http://127.0.0.1:1', token: 't', maxDescriptionChars: 1.5 },
      /maxDescriptionChars/,
    ],
    [
      'a bad breaker threshold',
      { baseUrl: 'http://127.0.0.1:1', token: 't', breaker: { failureThreshold: 0 } },
      /failureThreshold/,
    ],
    // Timers fire at once past 2^31 - 1 ms: every search would time out and rank locally.
    [
      'a timeout longer than a timer can wait',
      { baseUrl: 'http://127.0.0.1:1', token: 't', timeoutMs: 2 ** 31 },
      /timeoutMs/,
    ],
  ])('%s throws a CatalogSearchError', (_name, options, message) => {
    expect(() => createCatalogSearchClient(options)).toThrow(message);
    expect(() => createCatalogSearchClient(options)).toThrow(CatalogSearchError);
  });
});
