import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  AuthenticationError,
  BadRequestError,
  CredentialsError,
  createCatalogSearchClient,
  InternalServerError,
  InvalidResponseError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  RateLimitError,
  UnprocessableEntityError,
  type CatalogSearchClientOptions,
  type FallbackEvent,
  type SearchEvent,
} from '@catalog-search/client';
import { MAX_RESPONSE_BYTES } from '../src/response-body.js';
import {
  closedPortUrl,
  cloudAnswer,
  expectedLocalResults,
  problem,
  REQUEST,
  sendJson,
  startServer,
  type Handler,
  type LoopbackServer,
} from './loopback.js';
import { testClient } from './test-client.js';

// Every failure mode ends the same way for the router: ranked tools from core's BM25, with
// source "local" and the reason named. Breaker disabled here; client.breaker.test.ts covers it.

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function searchAgainst(handler: Handler, options: Partial<CatalogSearchClientOptions> = {}) {
  server = await startServer(handler);
  const events: FallbackEvent[] = [];
  const client = createCatalogSearchClient({
    baseUrl: server.baseUrl,
    token: 'test-token',
    // Generous for answers on a loaded machine; the hang cases pass a short one.
    timeoutMs: 5000,
    breaker: false,
    onFallback: (event) => events.push(event),
    ...options,
  });
  const outcome = await client.search(REQUEST);
  return { outcome, events };
}

function expectLocalAnswer(outcome: Awaited<ReturnType<typeof searchAgainst>>['outcome'], reason: string) {
  expect(outcome.source).toBe('local');
  expect(outcome.fallbackReason).toBe(reason);
  expect(outcome.results.length).toBeGreaterThan(0);
  expect(outcome.results).toEqual(expectedLocalResults(REQUEST));
  expect(outcome.meta).toMatchObject({ ranker: 'bm25', degraded: `local_fallback:${reason}` });
}

describe('fallback when the cloud is unusable', () => {
  it('answers locally with "timeout" when the server never answers', async () => {
    const { outcome, events } = await searchAgainst(
      () => {
        // hang: read the request, never respond
      },
      { timeoutMs: 300 },
    );
    expectLocalAnswer(outcome, 'timeout');
    expect(events).toHaveLength(1);
    expect(events[0]!.error).toBeInstanceOf(APIConnectionTimeoutError);
    expect(events[0]!.configurationProblem).toBe(false);
    expect(events[0]!.requestId).toBe(outcome.meta.requestId);
  });

  it('answers locally with "timeout" when the body stalls after the headers', async () => {
    const { outcome, events } = await searchAgainst(
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"results":[');
      },
      { timeoutMs: 300 },
    );
    expectLocalAnswer(outcome, 'timeout');
    expect(events[0]!.error).toBeInstanceOf(APIConnectionTimeoutError);
  });

  it('answers locally with "network" when the server resets the connection', async () => {
    const { outcome, events } = await searchAgainst((req) => req.socket.destroy());
    expectLocalAnswer(outcome, 'network');
    expect(events[0]!.error).toBeInstanceOf(APIConnectionError);
    expect(events[0]!.error).not.toBeInstanceOf(APIConnectionTimeoutError);
  });

  it('answers locally with "network" when the connection is refused', async () => {
    const events: FallbackEvent[] = [];
    const client = testClient(await closedPortUrl(), {
      breaker: false,
      onFallback: (event) => events.push(event),
    });
    const outcome = await client.search(REQUEST);
    expectLocalAnswer(outcome, 'network');
    expect(events[0]!.error).toBeInstanceOf(APIConnectionError);
    expect(events[0]!.error.message).toMatch(/ECONNREFUSED/);
  });

  it('answers locally with "server_error" on a 500 and keeps the problem body', async () => {
    const { outcome, events } = await searchAgainst((_req, res) =>
      sendJson(res, 500, problem(500, 'Internal Server Error', 'boom'), { 'x-request-id': 'srv-1' }),
    );
    expectLocalAnswer(outcome, 'server_error');
    const error = events[0]!.error as InternalServerError;
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error.status).toBe(500);
    expect(error.problem?.detail).toBe('boom');
    expect(error.requestId).toBe('srv-1');
  });

  it('answers locally with "rate_limited" on a 429', async () => {
    const { outcome, events } = await searchAgainst((_req, res) =>
      sendJson(res, 429, problem(429, 'Too Many Requests', 'slow down'), { 'retry-after': '7' }),
    );
    expectLocalAnswer(outcome, 'rate_limited');
    const error = events[0]!.error as RateLimitError;
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.retryAfterMs).toBe(7000);
  });

  it.each([
    [401, 'unauthorized', AuthenticationError],
    [403, 'forbidden', PermissionDeniedError],
    [404, 'not_found', NotFoundError],
    [400, 'bad_request', BadRequestError],
    [413, 'bad_request', PayloadTooLargeError],
    [422, 'bad_request', UnprocessableEntityError],
  ])('answers locally on a %i and flags it as a configuration problem (%s)', async (status, reason, ErrorClass) => {
    const { outcome, events } = await searchAgainst((_req, res) =>
      sendJson(res, status, problem(status, 'Refused', 'no')),
    );
    expectLocalAnswer(outcome, reason);
    expect(events[0]!.error).toBeInstanceOf(ErrorClass);
    expect(events[0]!.configurationProblem).toBe(true);
  });

  it('answers locally with "invalid_response" when the body is not JSON', async () => {
    const { outcome, events } = await searchAgainst((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"results": [tru');
    });
    expectLocalAnswer(outcome, 'invalid_response');
    expect(events[0]!.error).toBeInstanceOf(InvalidResponseError);
  });

  it('answers locally with "invalid_response" when the JSON does not match the schema', async () => {
    const answer = cloudAnswer();
    answer.results[0]!.relevance = 7;
    const { outcome, events } = await searchAgainst((_req, res) => sendJson(res, 200, answer));
    expectLocalAnswer(outcome, 'invalid_response');
    expect(events[0]!.error.message).toMatch(/\/results\/0\/relevance/);
  });

  it('answers locally with "invalid_response" when a result names a tool that was not sent', async () => {
    const answer = cloudAnswer();
    answer.results[0]!.toolKey = 'evil:exfiltrate';
    const { outcome, events } = await searchAgainst((_req, res) => sendJson(res, 200, answer));
    expectLocalAnswer(outcome, 'invalid_response');
    expect(events[0]!.error.message).toMatch(/evil:exfiltrate/);
  });

  it.each([
    [
      'names a sent tool twice',
      (answer: ReturnType<typeof cloudAnswer>) => answer.results.push({ ...answer.results[0]! }),
      /twice/,
    ],
    [
      'has more results than maxResults',
      (answer: ReturnType<typeof cloudAnswer>) => {
        answer.results = REQUEST.tools.map((tool) => ({
          toolKey: tool.toolKey,
          toolName: tool.toolName,
          serverName: tool.serverName,
          relevance: 0.5,
        }));
      },
      /more than maxResults/,
    ],
    [
      'gives a sent key another tool name',
      (answer: ReturnType<typeof cloudAnswer>) => {
        answer.results[0]!.toolName = 'delete_everything';
      },
      /delete_everything/,
    ],
    [
      'gives a sent key another server name',
      (answer: ReturnType<typeof cloudAnswer>) => {
        answer.results[0]!.serverName = 'Evil Corp';
      },
      /Evil Corp/,
    ],
    [
      'has a result below minRelevance',
      (answer: ReturnType<typeof cloudAnswer>) => {
        answer.results[0]!.relevance = 0.05;
      },
      /minRelevance/,
    ],
  ])('answers locally with "invalid_response" when the answer %s', async (_case, spoil, message) => {
    const answer = cloudAnswer();
    spoil(answer);
    server = await startServer((_req, res) => sendJson(res, 200, answer));
    const events: FallbackEvent[] = [];
    const client = testClient(server.baseUrl, { breaker: false, onFallback: (event) => events.push(event) });
    const request = { ...REQUEST, minRelevance: 0.1 };
    const outcome = await client.search(request);
    expect(outcome).toMatchObject({ source: 'local', fallbackReason: 'invalid_response' });
    expect(outcome.results).toEqual(expectedLocalResults(REQUEST).filter((result) => result.relevance >= 0.1));
    expect(events[0]!.error.message).toMatch(message);
  });

  it.each([
    [
      "a result's annotations object",
      (deep: string) =>
        `{"results":[{"toolKey":"jira:create_ticket","toolName":"create_ticket","serverName":"Jira","relevance":0.9,"annotations":${deep}}],"meta":{"ranker":"llm","requestId":"r"}}`,
    ],
    [
      'a meta field the client does not know',
      (deep: string) => `{"results":[],"meta":{"ranker":"llm","requestId":"r","extra":${deep}}}`,
    ],
  ])(
    'answers locally with "invalid_response" when %s is nested deeper than any tool the service accepts',
    async (_case, answer) => {
      // 100,000 levels in 700 KB: JSON.parse takes it, but the router's JSON.stringify of the answer
      // (to hand the tools to its model) would overflow the stack.
      const levels = 100_000;
      const deep = '{"a":'.repeat(levels) + '{}' + '}'.repeat(levels);
      const { outcome, events } = await searchAgainst((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(answer(deep));
      });
      expectLocalAnswer(outcome, 'invalid_response');
      expect(events[0]!.error.message).toMatch(/nests deeper than/);
      expect(() => JSON.stringify(outcome)).not.toThrow();
    },
  );

  it.each([
    ['with a Content-Length', true],
    ['streamed without a length', false],
  ])(
    'answers locally with "invalid_response" when a 2xx body is over the size limit (%s)',
    async (_case, withLength) => {
      // A valid answer padded past MAX_RESPONSE_BYTES: the client must not buffer whatever a server sends.
      const json = JSON.stringify({ ...cloudAnswer(), padding: 'x'.repeat(MAX_RESPONSE_BYTES) });
      let written = 0;
      const { outcome, events } = await searchAgainst((_req, res) => {
        res.writeHead(200, {
          'content-type': 'application/json',
          ...(withLength ? { 'content-length': String(Buffer.byteLength(json)) } : {}),
        });
        const chunk = 64 * 1024;
        const writeMore = (): void => {
          while (written < json.length) {
            const part = json.slice(written, written + chunk);
            written += part.length;
            if (!res.write(part)) {
              res.once('drain', writeMore);
              return;
            }
          }
          res.end();
        };
        res.on('close', () => res.off('drain', writeMore));
        writeMore();
      });
      expectLocalAnswer(outcome, 'invalid_response');
      expect(events[0]!.error.message).toMatch(/larger than/);
    },
  );

  it('answers locally with "unauthorized" when getToken() throws, without calling the cloud', async () => {
    const { outcome, events } = await searchAgainst((_req, res) => sendJson(res, 200, cloudAnswer()), {
      token: undefined,
      getToken: async () => {
        throw new Error('token store offline');
      },
    });
    expectLocalAnswer(outcome, 'unauthorized');
    expect(events[0]!.error).toBeInstanceOf(CredentialsError);
    expect(server!.seen).toHaveLength(0);
  });

  it('answers locally with "timeout" when getToken() hangs past the budget', async () => {
    const { outcome } = await searchAgainst((_req, res) => sendJson(res, 200, cloudAnswer()), {
      token: undefined,
      getToken: () => new Promise<string>(() => {}),
      timeoutMs: 300,
    });
    expectLocalAnswer(outcome, 'timeout');
  });

  it('still answers when onFallback throws', async () => {
    const { outcome } = await searchAgainst((_req, res) => sendJson(res, 500, {}), {
      onFallback: () => {
        throw new Error('logger broke');
      },
    });
    expectLocalAnswer(outcome, 'server_error');
  });

  it('honours maxResults and the default of 20 in the local answer', async () => {
    server = await startServer((_req, res) => sendJson(res, 503, {}));
    const client = testClient(server.baseUrl, { breaker: false });
    const many = Array.from({ length: 30 }, (_, i) => ({
      toolKey: `s:create_thing_${i}`,
      toolName: `create_thing_${i}`,
      serverName: 'S',
      description: 'create a thing',
    }));
    const outcome = await client.search({ query: ['create thing'], tools: many });
    expect(outcome.results).toHaveLength(20);
    const one = await client.search({ query: ['create thing'], tools: many, maxResults: 1 });
    expect(one.results).toHaveLength(1);
  });

  it('says loudly when the cloud refuses the token: onSearch flags it, and without onFallback the console is told once', async () => {
    let status = 401;
    server = await startServer((_req, res) => sendJson(res, status, problem(status, 'Unauthorized', 'bad token')));
    const searches: SearchEvent[] = [];
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const client = testClient(server.baseUrl, { breaker: false, onSearch: (event) => searches.push(event) });
      await client.search(REQUEST);
      await client.search(REQUEST);
      expect(searches.map((event) => [event.fallbackReason, event.configurationProblem])).toEqual([
        ['unauthorized', true],
        ['unauthorized', true],
      ]);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn.mock.calls[0]![0]).toMatch(/refused the token \(401\).*answered locally/);
      // Another refusal (403) is told too; a cloud failure that fixes itself is not flagged.
      status = 403;
      await client.search(REQUEST);
      expect(warn).toHaveBeenCalledTimes(2);
      expect(warn.mock.calls[1]![0]).toMatch(/refused the project \(403\)/);
      status = 503;
      await client.search(REQUEST);
      expect(searches.at(-1)).toMatchObject({ fallbackReason: 'server_error' });
      expect(searches.at(-1)!.configurationProblem).toBeUndefined();
      expect(warn).toHaveBeenCalledTimes(2);
      // A router that watches fallbacks itself is not doubled on the console.
      const watched = testClient(server.baseUrl, { breaker: false, onFallback: () => undefined });
      status = 401;
      await watched.search(REQUEST);
      expect(warn).toHaveBeenCalledTimes(2);
    } finally {
      warn.mockRestore();
    }
  });
});
