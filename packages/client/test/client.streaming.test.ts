import { afterEach, describe, expect, it } from 'vitest';
import { APIConnectionError, type FallbackEvent, type FetchLike } from '@catalog-search/client';
import { supportsStreamedBodies } from '../src/streamed-body.js';
import { closedPortUrl, largeRequest, REQUEST, sendJson, startServer, type LoopbackServer } from './loopback.js';
import { testClient } from './test-client.js';

// Large bodies are streamed where fetch allows it, so that nothing is serialised or gzipped before
// the connection is up; a fetch that refuses streamed bodies gets buffered ones.

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const ok = { results: [], meta: { ranker: 'bm25', requestId: 'r' } };

/** The runtime's fetch, recording whether each call carried a streamed body. */
function observedFetch(rejectStreams = false): { fetch: FetchLike; streamed: boolean[] } {
  const streamed: boolean[] = [];
  const fetch: FetchLike = (url, init) => {
    const isStream = init.body instanceof ReadableStream;
    streamed.push(isStream);
    // What Chromium does over HTTP/1.1, or a fetch without streamed bodies: reject before sending.
    if (isStream && rejectStreams) return Promise.reject(new TypeError('Failed to fetch'));
    return globalThis.fetch(url, init);
  };
  return { fetch, streamed };
}

/** A large request with one tool whose JSON form counts how often the body is serialised. */
function countingRequest() {
  const counter = { serialised: 0 };
  const request = largeRequest();
  request.tools[0]!.inputSchema = {
    type: 'object',
    toJSON: () => {
      counter.serialised += 1;
      return { type: 'object' };
    },
  };
  return { request, counter };
}

describe('streamed request bodies', () => {
  it('Node passes the feature test', () => {
    expect(supportsStreamedBodies(globalThis.Request)).toBe(true);
  });

  it('a Request that ignores duplex, turns the stream into text, or is missing fails the feature test', () => {
    class IgnoresDuplex extends Request {
      constructor(input: RequestInfo | URL, init?: RequestInit) {
        super(input, { method: init?.method, body: 'text' });
      }
    }
    class StreamAsText {
      readonly headers = new Headers({ 'content-type': 'text/plain;charset=UTF-8' });
      constructor(_url: string, init: RequestInit & { duplex?: string }) {
        void init.duplex;
      }
    }
    expect(supportsStreamedBodies(IgnoresDuplex)).toBe(false);
    expect(supportsStreamedBodies(StreamAsText as unknown as typeof Request)).toBe(false);
    expect(supportsStreamedBodies(undefined)).toBe(false);
  });

  it('with the cloud down, a large body is never serialised, and the refusal is not retried', async () => {
    const { request, counter } = countingRequest();
    const { fetch, streamed } = observedFetch();
    const events: FallbackEvent[] = [];
    const client = testClient(await closedPortUrl(), { fetch, onFallback: (e) => events.push(e) });
    const outcome = await client.search(request);
    expect(outcome).toMatchObject({ source: 'local', fallbackReason: 'network' });
    expect(events[0]!.error).toBeInstanceOf(APIConnectionError);
    expect(events[0]!.error.message).toMatch(/ECONNREFUSED/);
    expect(streamed).toEqual([true]);
    expect(counter.serialised).toBe(0);
  });

  it('with the cloud up, the large body is streamed (chunked), gzipped and arrives intact', async () => {
    const { request, counter } = countingRequest();
    server = await startServer((_req, res) => sendJson(res, 200, ok));
    const { fetch, streamed } = observedFetch();
    const outcome = await testClient(server.baseUrl, { fetch }).search(request);
    expect(outcome.source).toBe('cloud');
    expect(streamed).toEqual([true]);
    expect(counter.serialised).toBe(1);
    const [seen] = server.seen;
    expect(seen?.headers).toMatchObject({ 'transfer-encoding': 'chunked', 'content-encoding': 'gzip' });
    expect(seen?.headers['content-length']).toBeUndefined();
    expect(seen?.body).toEqual(JSON.parse(JSON.stringify(request)));
  });

  it('sends small bodies buffered, with a Content-Length', async () => {
    server = await startServer((_req, res) => sendJson(res, 200, ok));
    const { fetch, streamed } = observedFetch();
    await testClient(server.baseUrl, { fetch }).search(REQUEST);
    expect(streamed).toEqual([false]);
    expect(Number(server.seen[0]?.headers['content-length'])).toBe(server.seen[0]?.bytes);
  });

  it('falls back to a buffered body when fetch rejects a streamed one, and keeps sending buffered', async () => {
    server = await startServer((_req, res) => sendJson(res, 200, ok));
    const { fetch, streamed } = observedFetch(true);
    const client = testClient(server.baseUrl, { fetch });
    expect((await client.search(largeRequest())).source).toBe('cloud');
    expect((await client.search(largeRequest())).source).toBe('cloud');
    expect(streamed).toEqual([true, false, false]);
    expect(server.seen).toHaveLength(2);
    for (const seen of server.seen) {
      expect(seen.headers['content-encoding']).toBe('gzip');
      expect(Number(seen.headers['content-length'])).toBe(seen.bytes);
      expect(seen.body).toEqual(largeRequest());
    }
  });

  it('a request that cannot be serialised does not turn streaming off for the next ones', async () => {
    server = await startServer((_req, res) => sendJson(res, 200, ok));
    const { fetch, streamed } = observedFetch();
    const client = testClient(server.baseUrl, { fetch });
    const broken = largeRequest();
    broken.tools[0]!.inputSchema = {
      type: 'object',
      toJSON: () => {
        throw new Error('not JSON');
      },
    };
    expect((await client.search(broken)).source).toBe('local');
    expect((await client.search(largeRequest())).source).toBe('cloud');
    expect(streamed).toEqual([true, true]);
  });

  it('a 307 redirect is followed by sending the body again buffered (gzipped)', async () => {
    server = await startServer((req, res) => {
      if (req.url === '/v1/catalog/search') {
        res.writeHead(307, { location: '/moved/catalog/search' });
        res.end();
      } else sendJson(res, 200, ok);
    });
    const { fetch, streamed } = observedFetch();
    const outcome = await testClient(server.baseUrl, { fetch }).search(largeRequest());
    expect(outcome.source).toBe('cloud');
    expect(streamed).toEqual([true, false]);
    expect(server.seen.map((seen) => seen.url)).toEqual([
      '/v1/catalog/search',
      '/v1/catalog/search',
      '/moved/catalog/search',
    ]);
    expect(server.seen[2]?.headers['content-encoding']).toBe('gzip');
    expect(server.seen[2]?.body).toEqual(largeRequest());
  });

  it('a streamed call that times out falls back as "timeout", without a buffered retry', async () => {
    server = await startServer(() => {
      // read the whole body, never answer
    });
    const { fetch, streamed } = observedFetch();
    const client = testClient(server.baseUrl, { fetch, timeoutMs: 300 });
    expect(await client.search(largeRequest())).toMatchObject({ source: 'local', fallbackReason: 'timeout' });
    // A retry would start after the abort settles the streamed attempt: give it the chance.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(streamed).toEqual([true]);
    expect(server.seen).toHaveLength(1);
  });

  it('a connection reset while streaming falls back as "network", without a buffered retry', async () => {
    server = await startServer((req) => req.socket.destroy());
    const { fetch, streamed } = observedFetch();
    const outcome = await testClient(server.baseUrl, { fetch }).search(largeRequest());
    expect(outcome).toMatchObject({ source: 'local', fallbackReason: 'network' });
    expect(streamed).toEqual([true]);
  });
});
