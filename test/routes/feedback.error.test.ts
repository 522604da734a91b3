import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_FEEDBACK_EVENTS } from '@catalog-search/core';
import { startApp, testConfig, type RunningApp } from '../helpers/app.js';
import { sampleTools } from '../fixtures/tools.js';
import { routerOf } from './feedback-client.js';
import { testToken } from '../helpers/tokens.js';
import { madeUpWord } from '../fixtures/words.js';

const RATE_LIMIT = 3;
let server: RunningApp;
let limited: RunningApp;
beforeAll(async () => {
  server = await startApp(testConfig({ feedback: { ...testConfig().feedback, maxBodyBytes: 4096 } }));
  limited = await startApp(testConfig({ rateLimitPerMinute: RATE_LIMIT }));
});
afterAll(async () => {
  await server.close();
  await limited.close();
});

function post(body: string | Uint8Array, headers: Record<string, string> = {}, url = server.url) {
  return fetch(`${url}/v1/catalog/feedback`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${testToken({ projectId: 'errors' })}`,
      'content-type': 'application/json',
      ...headers,
    },
    body: body as BodyInit,
  });
}

async function problem(response: Response) {
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  return (await response.json()) as {
    code: string;
    detail: string;
    errors?: Array<{ field: string; message: string }>;
  };
}

describe('POST /v1/catalog/feedback: the envelope is strict', () => {
  it.each([
    ['an array', '[]', '/'],
    ['no events', '{}', '/events'],
    ['events not an array', '{"events":{}}', '/events'],
    ['no event', '{"events":[]}', '/events'],
    [
      'too many events',
      JSON.stringify({ events: Array.from({ length: MAX_FEEDBACK_EVENTS + 1 }, () => ({})) }),
      '/events',
    ],
  ])('%s → 400 naming the field', async (_name, body, field) => {
    const response = await post(body);
    expect(response.status).toBe(400);
    const answer = await problem(response);
    expect(answer.code).toBe('INVALID_REQUEST');
    expect(answer.errors?.[0]?.field).toBe(field);
  });

  it('an unknown top-level field → 400', async () => {
    const response = await post(
      JSON.stringify({ events: [{ query: 'x', toolKey: 'a:b', outcome: 'selected' }], extra: 1 }),
    );
    expect(response.status).toBe(400);
    expect((await problem(response)).detail).toMatch(/extra|additional/i);
  });

  it('malformed JSON → 400, text/plain → 415, a body over FEEDBACK_MAX_BODY_BYTES → 413', async () => {
    expect((await post('{"events": [')).status).toBe(400);
    expect((await post('{}', { 'content-type': 'text/plain' })).status).toBe(415);
    const big = JSON.stringify({ events: [{ query: 'x'.repeat(5000), toolKey: 'a:b', outcome: 'selected' }] });
    const response = await post(big);
    expect(response.status).toBe(413);
    expect(await problem(response)).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      detail: expect.stringMatching(/: at most 4096 bytes \(after decompression\)\.$/),
    });
  });

  it('a gzip body is read as search reads one; an unknown encoding → 415 naming it; a gzip bomb → 413', async () => {
    const report = JSON.stringify({
      events: [{ query: 'create a page', toolKey: 'notion:create_page', outcome: 'succeeded' }],
    });
    const gzipped = await post(gzipSync(report), { 'content-encoding': 'gzip' });
    expect(gzipped.status).toBe(202);
    expect(await gzipped.json()).toEqual({ accepted: 1, ignored: [] });
    const unknown = await post(report, { 'content-encoding': 'compress' });
    expect(unknown.status).toBe(415);
    expect((await problem(unknown)).detail).toContain('Content-Encoding');
    // FEEDBACK_MAX_BODY_BYTES (4 KB here) applies to the decompressed bytes.
    const bomb = gzipSync(
      JSON.stringify({ events: [{ query: 'x'.repeat(100_000), toolKey: 'a:b', outcome: 'selected' }] }),
    );
    expect(bomb.length).toBeLessThan(4096);
    const refused = await post(bomb, { 'content-encoding': 'gzip' });
    expect(refused.status).toBe(413);
    expect((await problem(refused)).code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('no token → 401 on POST and DELETE; GET → 405 naming the methods', async () => {
    expect(
      (
        await fetch(`${server.url}/v1/catalog/feedback`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        })
      ).status,
    ).toBe(401);
    expect((await fetch(`${server.url}/v1/catalog/feedback`, { method: 'DELETE' })).status).toBe(401);
    const get = await fetch(`${server.url}/v1/catalog/feedback`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST, DELETE');
  });
});

describe('FEEDBACK_LEARNING=false', () => {
  it('has no feedback routes, and searches carry no meta.learning', async () => {
    const off = await startApp(testConfig({ feedback: { ...testConfig().feedback, enabled: false } }));
    try {
      const router = routerOf(off.url, 'off');
      expect((await router.report([{ query: 'x y', toolKey: 'a:b', outcome: 'succeeded' }])).status).toBe(404);
      expect(await router.forget()).toBe(404);
      expect((await router.search(['read a file'], sampleTools)).meta).not.toHaveProperty('learning');
    } finally {
      await off.close();
    }
  });
});

describe('POST /v1/catalog/feedback: events are read leniently', () => {
  it('a bad event is ignored and named; the others are learned from', async () => {
    const response = await post(
      JSON.stringify({
        events: [
          { query: 'squad retro notes', toolKey: 'notion:create_page', outcome: 'succeeded' },
          'not an object',
          { query: 'x', outcome: 'succeeded' },
          { query: 'x', toolKey: 'a:b', outcome: 'great' },
          { toolKey: 'a:b', outcome: 'selected' },
          { requestId: 'never-searched', toolKey: 'a:b', outcome: 'selected' },
          { query: 42, toolKey: 'a:b', outcome: 'selected' },
          { query: 'the a of', toolKey: 'a:b', outcome: 'selected' },
          { query: 'x', context: 7, toolKey: 'a:b', outcome: 'selected' },
          {
            query: ['notes for the squad'],
            context: 'weekly',
            toolKey: 'notion:create_page',
            outcome: 'selected',
            extra: true,
          },
        ],
      }),
    );
    expect(response.status).toBe(202);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toMatch(/^catalog_search_feedback_events_total\{result="ignored"\} 8$/m);
    expect(await response.json()).toEqual({
      accepted: 2,
      ignored: [
        { index: 1, reason: 'must be an object' },
        { index: 2, reason: 'toolKey: must be a non-empty string of at most 512 characters' },
        { index: 3, reason: 'outcome: must be one of selected, succeeded, failed' },
        { index: 4, reason: 'query: required without requestId' },
        { index: 5, reason: 'requestId: no recent search of this project has this id; send query' },
        { index: 6, reason: 'query: must be a string or 1–16 strings' },
        { index: 7, reason: 'query: has no words to learn from' },
        { index: 8, reason: 'context: must be a string' },
      ],
    });
  });
});

describe('feedback is rate-limited like searches, in its own budget', () => {
  it(`a project's ${RATE_LIMIT + 1}th report in a minute gets 429 with Retry-After; its searches still run`, async () => {
    const statuses: number[] = [];
    for (let i = 0; i <= RATE_LIMIT; i += 1) {
      statuses.push(
        (
          await post(
            JSON.stringify({ events: [{ query: 'x y', toolKey: 'a:b', outcome: 'selected' }] }),
            {},
            limited.url,
          )
        ).status,
      );
    }
    expect(statuses).toEqual([202, 202, 202, 429]);
    const refused = await post('{}', {}, limited.url);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await problem(refused)).code).toBe('RATE_LIMITED');
    await expect(routerOf(limited.url, 'errors').search(['read a file'], sampleTools)).resolves.toHaveProperty(
      'results',
    );
  });
});

describe("POST /v1/catalog/feedback: learning's work is charged like a search's", () => {
  it("refuses a project's reports once their words used its work budget; another project's still count", async () => {
    // 6,000 units a minute: a quiet project may burst 1,000. Ten sub-queries of 2,000 characters of
    // words (20,000 characters, all new to learning) are charged ~6,400 units.
    const app = await startApp(testConfig({ fairShare: { ...testConfig().fairShare, workPerMinute: 6_000 } }));
    try {
      const words = (from: number) => Array.from({ length: 300 }, (_, i) => madeUpWord(from + i)).join(' ');
      const heavy = Array.from({ length: 10 }, (_, i) => ({
        query: words(i * 1_000).slice(0, 2_000),
        toolKey: 'a:b',
        outcome: 'succeeded',
      }));
      const flooder = routerOf(app.url, 'flooder');
      expect((await flooder.report(heavy)).status).toBe(202);
      const refused = await flooder.report([{ query: 'squad retro notes', toolKey: 'a:b', outcome: 'selected' }]);
      expect(refused.status).toBe(429);
      expect((refused.body as unknown as { code: string }).code).toBe('RATE_LIMITED');
      const other = routerOf(app.url, 'other');
      expect((await other.report([{ query: 'squad retro notes', toolKey: 'a:b', outcome: 'selected' }])).status).toBe(
        202,
      );
    } finally {
      await app.close();
    }
  });
});
