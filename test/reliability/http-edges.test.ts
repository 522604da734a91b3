// The HTTP edges a hostile or broken client reaches before any route (issue #12): oversized headers get
// 431 and slow clients 408, both as problem+json and close to the configured timeouts, and the service
// keeps serving everyone else.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { report, search, startService, stopAll, type ServiceProcess } from './scenario.js';
import { testToken } from '../helpers/tokens.js';

const HEADERS_TIMEOUT_MS = 1000;
const REQUEST_TIMEOUT_MS = 2000;
let service: ServiceProcess;
beforeAll(async () => {
  service = await startService({
    HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
    REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
  });
});
afterAll(() => stopAll());

interface RawAnswer {
  status: number;
  contentType: string;
  body: Record<string, unknown>;
  afterMs: number;
}

/** Writes `chunks` on a raw connection (the last one left unfinished on purpose) and reads the answer until the server closes. */
function raw(chunks: string[]): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(service.port, '127.0.0.1');
    let text = '';
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
    socket.on('data', (chunk) => (text += chunk.toString()));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = text.split('\r\n\r\n');
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0),
        contentType: /^content-type: (.*)$/im.exec(head)?.[1] ?? '',
        body: body ? (JSON.parse(body) as Record<string, unknown>) : {},
        afterMs: Date.now() - started,
      });
    });
    for (const chunk of chunks) socket.write(chunk);
  });
}

describe('HTTP edges', () => {
  it('a 100 KB header gets 431 problem+json, and the service keeps serving', async () => {
    const answer = await raw([`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(100 * 1024)}\r\n\r\n`]);
    const after = await search(service.url, testToken());
    report('oversized header', {
      headerBytes: 100 * 1024,
      status: answer.status,
      code: answer.body.code,
      nextSearchStatus: after,
    });
    expect(answer.status).toBe(431);
    expect(answer.contentType).toMatch(/^application\/problem\+json/);
    expect(answer.body).toMatchObject({ status: 431, code: 'HEADERS_TOO_LARGE', type: '/problems/headers-too-large' });
    expect(answer.body.requestId).toEqual(expect.any(String));
    expect(after).toBe(200);
  });

  it('headers that never finish get 408 problem+json close to HEADERS_TIMEOUT_MS', async () => {
    const answer = await raw(['POST /v1/catalog/search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n']);
    report('slow headers', {
      headersTimeoutMs: HEADERS_TIMEOUT_MS,
      status: answer.status,
      answeredAfterMs: answer.afterMs,
    });
    expect(answer.status).toBe(408);
    expect(answer.contentType).toMatch(/^application\/problem\+json/);
    expect(answer.body).toMatchObject({ status: 408, code: 'REQUEST_TIMEOUT' });
    expect(answer.afterMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50);
    expect(answer.afterMs, 'Node checks every 30 s by default; the service every 250 ms').toBeLessThan(
      HEADERS_TIMEOUT_MS + 1000,
    );
  });

  it('a body that never finishes gets 408 problem+json close to REQUEST_TIMEOUT_MS, and others are served meanwhile', async () => {
    const slow = raw([
      `POST /v1/catalog/search HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${testToken()}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"query":`,
    ]);
    const meanwhile = await search(service.url, testToken());
    const answer = await slow;
    const after = await search(service.url, testToken());
    report('slow body', {
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
      status: answer.status,
      answeredAfterMs: answer.afterMs,
      searchMeanwhile: meanwhile,
      searchAfter: after,
    });
    expect(answer.status).toBe(408);
    expect(answer.contentType).toMatch(/^application\/problem\+json/);
    expect(answer.body).toMatchObject({ status: 408, code: 'REQUEST_TIMEOUT' });
    expect(answer.afterMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
    expect(answer.afterMs).toBeLessThan(REQUEST_TIMEOUT_MS + 1000);
    expect([meanwhile, after]).toEqual([200, 200]);
  });
});
