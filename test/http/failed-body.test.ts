import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, testConfig, type RunningApp } from '../helpers/app.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import { searchAs } from '../helpers/search.js';
import { bearer } from '../helpers/tokens.js';
import { sampleTools } from '../fixtures/tools.js';

// With Redis, the per-project rate limit (the routes' last preParsing hook) waits on a Redis round trip
// after the body's decompressor is set up: a body that fails to decompress can fail during that wait,
// and the parser must still hear of it. A Redis busy for half a second (DEBUG SLEEP) makes the wait long
// enough every time.
let redis: TestRedis;
let server: RunningApp;
beforeAll(async () => {
  redis = await startTestRedis();
  server = await startApp(
    testConfig({
      rateLimitPerMinute: 600,
      redis: { url: redis.url, commandTimeoutMs: 2000, keyPrefix: 'failed-body:' },
    }),
  );
  // Until connected, the rate limit counts in process and never waits.
  const connected = () => server.logs.raw.some((line) => line.includes('Redis connected'));
  for (let n = 0; n < 200 && !connected(); n += 1) await new Promise((resolve) => setTimeout(resolve, 50));
  expect(connected()).toBe(true);
});
afterAll(async () => {
  await server?.close();
  await redis?.stop();
});

const search = gzipSync(JSON.stringify({ query: ['read a file'], tools: sampleTools.slice(0, 5) }));
const report = gzipSync(
  JSON.stringify({ events: [{ query: ['read a file'], toolKey: 'fs:read', outcome: 'succeeded' }] }),
);
// Each is refused by zlib only once the whole body is in: nothing in it is wrong until its end.
const broken = (gzip: Buffer) => ({
  'without its trailer': gzip.subarray(0, gzip.length - 4),
  'with bytes after its end': Buffer.concat([gzip, Buffer.from('junkjunk')]),
});

async function post(path: string, body: Uint8Array, projectId: string) {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { authorization: bearer({ projectId }), 'content-type': 'application/json', 'content-encoding': 'gzip' },
    body: body as BodyInit,
    // A hang is the failure: without an answer in 10 s the request is given up and the test fails.
    signal: AbortSignal.timeout(10_000),
  });
  return { status: response.status, body: (await response.json()) as { code?: string; detail?: string } };
}

describe('a compressed body that fails to decompress while the request waits gets 400, not a hang', () => {
  for (const [route, gzip] of [
    ['/v1/catalog/search', search],
    ['/v1/catalog/feedback', report],
  ] as const) {
    for (const [name, body] of Object.entries(broken(gzip))) {
      it(`${route}: a gzip body ${name}`, async () => {
        for (let i = 0; i < 2; i++) {
          await redis.sleep(0.5);
          const answer = await post(route, body, `failed-body-${i}`);
          expect(answer.status).toBe(400);
          expect(answer.body).toMatchObject({ code: 'INVALID_REQUEST' });
          expect(answer.body.detail).toContain('Content-Encoding');
        }
        // The intact body on the same route still works.
        const ok = await post(route, gzip, 'failed-body-ok');
        expect(ok.status).toBeLessThan(300);
      }, 60_000);
    }
  }

  it('a search answered after a refused one (the server keeps serving)', async () => {
    const answer = await searchAs(server, { query: ['read a file'], tools: sampleTools.slice(0, 5) });
    expect(answer.status).toBe(200);
  });
});
