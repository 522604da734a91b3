// Fair sharing between projects (src/search/fair-share.ts), over real HTTP: searches in flight, work
// (tools × sub-queries) and bytes per project per minute; over a limit → 429 problem+json with
// Retry-After, for that project only.
import { describe, expect, it } from 'vitest';
import type { Reranker } from '../src/search/reranker.js';
import { startApp, TEST_SECRET, testConfig } from './helpers/app.js';
import { claims, signJwt } from './helpers/tokens.js';
import { sampleTools } from './fixtures/tools.js';
import { FairShare } from '../src/search/fair-share.js';
import { ProblemError } from '../src/errors.js';

const as = (projectId: string) =>
  `Bearer ${signJwt(claims({ iss: 'https://router.example', aud: 'catalog-search', projectId }), { alg: 'HS256', key: TEST_SECRET })}`;

async function search(url: string, projectId: string, body: unknown = { query: ['create a github issue'], tools: sampleTools }) {
  const response = await fetch(`${url}/v1/catalog/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: as(projectId) },
    body: JSON.stringify(body),
  });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), type: response.headers.get('content-type'), json: (await response.json()) as Record<string, unknown> };
}

const limits = (overrides: Partial<ReturnType<typeof testConfig>['fairShare']>) =>
  testConfig({ fairShare: { maxInFlight: 0, workPerMinute: 0, bytesPerMinute: 0, ...overrides } });

describe('security: one project cannot take more than its share', () => {
  it('limits searches in flight per project; other projects and later searches are served', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let bothArrived!: () => void;
    const twoInFlight = new Promise<void>((resolve) => (bothArrived = resolve));
    let arrived = 0;
    // A reranker that holds every search until released: searches stay in flight.
    const reranker: Reranker = {
      rerank: async (request) => {
        if (++arrived === 2) bothArrived();
        await held;
        return { ranker: 'bm25', ranked: request.lexical, degraded: 'timeout' };
      },
    };
    const server = await startApp(limits({ maxInFlight: 2 }), { reranker });
    try {
      const first = [search(server.url, 'busy'), search(server.url, 'busy')];
      await twoInFlight; // both admitted and held, however slow the machine
      const third = await search(server.url, 'busy');
      expect(third.status).toBe(429);
      expect(third.type).toMatch(/^application\/problem\+json/);
      expect(third.json).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
      expect(Number(third.retryAfter)).toBeGreaterThan(0);
      const other = search(server.url, 'other'); // its own two slots
      release();
      expect((await Promise.all(first)).map((r) => r.status)).toEqual([200, 200]);
      expect((await other).status).toBe(200);
      expect((await search(server.url, 'busy')).status).toBe(200); // slots are given back
    } finally {
      await server.close();
    }
  });

  it('charges tools × sub-queries: a project past its work budget waits, others do not', async () => {
    // 600 per minute = a bucket of 100 (10 s); one search of 10 tools × 16 sub-queries costs 160.
    const server = await startApp(limits({ workPerMinute: 600 }));
    const heavy = { query: Array.from({ length: 16 }, (_, at) => `step ${at} create an issue`), tools: sampleTools.slice(0, 10) };
    try {
      expect((await search(server.url, 'heavy', heavy)).status).toBe(200); // admitted while the bucket is positive
      const refused = await search(server.url, 'heavy', { query: ['one'], tools: sampleTools.slice(0, 1) });
      expect(refused.status).toBe(429);
      expect(refused.json.detail).toMatch(/tools × sub-queries/);
      expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(6); // 60 of debt at 10 per second
      expect((await search(server.url, 'light')).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('charges request bytes before the body is parsed', async () => {
    const server = await startApp(limits({ bytesPerMinute: 6 * 1024 })); // a bucket of 1 KB
    const big = { query: ['create an issue'], tools: sampleTools.map((tool) => ({ ...tool, description: 'd'.repeat(500) })) };
    try {
      expect((await search(server.url, 'big', big)).status).toBe(200);
      expect((await search(server.url, 'big')).status).toBe(429);
      expect((await search(server.url, 'small')).status).toBe(200);
    } finally {
      await server.close();
    }
  });
  it('charges the bytes of a body that declares fewer: sent chunked, without Content-Length', async () => {
    const server = await startApp(limits({ bytesPerMinute: 6 * 1024 })); // a bucket of 1 KB
    const big = JSON.stringify({ query: ['create an issue'], tools: sampleTools.map((tool) => ({ ...tool, description: 'd'.repeat(500) })) });
    const chunked = (projectId: string) =>
      fetch(`${server.url}/v1/catalog/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: as(projectId) },
        body: new Blob([big]).stream(),
        duplex: 'half',
      } as RequestInit);
    try {
      expect((await chunked('chunked')).status).toBe(200);
      expect((await chunked('chunked')).status).toBe(429); // the first one's ~25 KB were charged
      expect((await search(server.url, 'other')).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe('FairShare buckets', () => {
  it('refill at their rate and say when to retry', () => {
    let now = 0;
    const share = new FairShare({ maxInFlight: 0, workPerMinute: 60_000, bytesPerMinute: 0 }, { now: () => now }); // 1,000 per second
    share.admit('p', 0);
    share.chargeWork('p', 12_000); // a bucket of 10,000: 2,000 in debt
    share.finish('p');
    const refusal = (() => {
      try {
        share.admit('p', 0);
      } catch (error) {
        return error as ProblemError;
      }
      return undefined;
    })();
    expect(refusal?.code).toBe('RATE_LIMITED');
    expect(refusal?.extra.headers?.['retry-after']).toBe('3');
    now += 2_100;
    expect(() => share.admit('p', 0)).not.toThrow();
  });
});
