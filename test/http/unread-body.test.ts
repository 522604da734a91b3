// A refusal costs nothing later: a request refused before its body was read (429, 415) leaves its
// keep-alive connection ready for the next request, answered at once (not after REQUEST_TIMEOUT_MS with
// 408). A body that may not be read at all (declared over the body limit, or of unknown length) closes
// the connection after the answer instead.
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startApp, testConfig, type RunningApp } from '../helpers/app.js';
import { testToken } from '../helpers/tokens.js';

const REQUEST_TIMEOUT_MS = 8_000;
/** The service as deployed: per-project admission on (it reads the body through a metered stream), a long request timeout. */
function deployedConfig(rateLimitPerMinute = 0) {
  const config = testConfig({
    rateLimitPerMinute,
    fairShare: { maxInFlight: 8, maxWaiting: 16, workPerMinute: 0, bytesPerMinute: 300 * 1024 * 1024 },
  });
  return { ...config, http: { ...config.http, requestTimeoutMs: REQUEST_TIMEOUT_MS } };
}
let server: RunningApp | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  ms: number;
}

/** One HTTP/1.1 connection, requests written on it one after another, each answer read whole. */
function rawConnection(url: string) {
  const { port } = new URL(url);
  const socket: Socket = connect(Number(port), '127.0.0.1');
  let buffered = Buffer.alloc(0);
  let waiting: (() => void) | undefined;
  let closed = false;
  socket.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    waiting?.();
  });
  socket.on('close', () => {
    closed = true;
    waiting?.();
  });
  socket.on('error', () => {});
  const nextResponse = async (): Promise<Omit<RawResponse, 'ms'>> => {
    for (;;) {
      const end = buffered.indexOf('\r\n\r\n');
      if (end >= 0) {
        const [statusLine, ...lines] = buffered.subarray(0, end).toString().split('\r\n');
        const headers = Object.fromEntries(
          lines.map((line) => [
            line.slice(0, line.indexOf(':')).toLowerCase(),
            line.slice(line.indexOf(':') + 1).trim(),
          ]),
        );
        const length = Number(headers['content-length'] ?? 0);
        if (buffered.length >= end + 4 + length) {
          buffered = buffered.subarray(end + 4 + length);
          return { status: Number(statusLine!.split(' ')[1]), headers };
        }
      }
      if (closed) throw new Error('connection closed before a whole response');
      await new Promise<void>((resolve) => (waiting = resolve));
    }
  };
  return {
    get closed() {
      return closed;
    },
    async request(head: string, body: Buffer | string = ''): Promise<RawResponse> {
      const started = performance.now();
      socket.write(head);
      if (body.length > 0) socket.write(body);
      const response = await nextResponse();
      return { ...response, ms: performance.now() - started };
    },
    close: () => socket.destroy(),
  };
}

const post = (path: string, token: string, length: number | undefined, contentType = 'application/json') =>
  `POST ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\nContent-Type: ${contentType}\r\n` +
  (length === undefined ? 'Transfer-Encoding: chunked\r\n' : `Content-Length: ${length}\r\n`) +
  '\r\n';
const HEALTH = 'GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n';
/** A valid search body of ~200 KB. */
const bigBody = Buffer.from(
  JSON.stringify({
    query: ['create an invoice'],
    tools: Array.from({ length: 200 }, (_, at) => ({
      toolKey: `srv:tool_${at}`,
      description: `create invoice ${at} `.padEnd(1_000, 'x'),
    })),
  }),
);

describe('a refused request leaves its connection ready', () => {
  it('429 (rate limit) on a 200 KB body: the next request on the same connection is answered at once', async () => {
    server = await startApp(deployedConfig(1));
    const token = testToken({ projectId: 'refused-429' });
    const connection = rawConnection(server.url);
    try {
      expect((await connection.request(post('/v1/catalog/search', token, bigBody.length), bigBody)).status).toBe(200);
      expect(bigBody.length).toBeGreaterThan(200_000);
      const refused = await connection.request(post('/v1/catalog/search', token, bigBody.length), bigBody);
      expect(refused.status).toBe(429);
      const next = await connection.request(HEALTH);
      expect(next.status).toBe(200);
      // Stalled, it would wait for REQUEST_TIMEOUT_MS and get 408.
      expect(next.ms).toBeLessThan(REQUEST_TIMEOUT_MS / 2);
      expect(connection.closed).toBe(false);
    } finally {
      connection.close();
    }
  });

  it('415 (not JSON) on a 200 KB body: the next request on the same connection is answered at once', async () => {
    server = await startApp(deployedConfig());
    const connection = rawConnection(server.url);
    try {
      const token = testToken({ projectId: 'refused-415' });
      const refused = await connection.request(
        post('/v1/catalog/search', token, bigBody.length, 'text/plain'),
        bigBody,
      );
      expect(refused.status).toBe(415);
      const next = await connection.request(HEALTH);
      expect(next.status).toBe(200);
      expect(next.ms).toBeLessThan(REQUEST_TIMEOUT_MS / 2);
    } finally {
      connection.close();
    }
  });

  it('a refused body of unknown length is not read: the answer closes the connection', async () => {
    server = await startApp(deployedConfig(1));
    const token = testToken({ projectId: 'refused-chunked' });
    const connection = rawConnection(server.url);
    try {
      expect((await connection.request(HEALTH)).status).toBe(200);
      expect((await connection.request(post('/v1/catalog/search', token, 2), '{}')).status).toBe(400);
      // The refusal comes before any byte of the body is sent: the server does not wait for it.
      const refused = await connection.request(post('/v1/catalog/search', token, undefined));
      expect(refused.status).toBe(429);
      expect(refused.headers.connection).toBe('close');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(connection.closed).toBe(true);
    } finally {
      connection.close();
    }
  });
});
