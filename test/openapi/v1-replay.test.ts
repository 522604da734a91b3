import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, testConfig, type RunningApp } from '../helpers/app.js';
import { testToken } from '../helpers/tokens.js';
import { breakingDifferences, shapeOf, type RecordedExchange } from './replay.js';

/** Replays the v1 exchanges recorded by scripts/record-v1-replay.ts: a breaking change fails here. */

const exchanges = JSON.parse(
  await readFile(new URL('../fixtures/v1/replay.json', import.meta.url), 'utf8'),
) as RecordedExchange[];

let server: RunningApp;
beforeAll(async () => {
  server = await startApp(testConfig());
});
afterAll(() => server.close());

describe('recorded v1 exchanges still hold', () => {
  it.each(exchanges.map((exchange) => [exchange.name, exchange] as const))('%s', async (_name, exchange) => {
    // The seed path serves the same operation, so it must keep the same contract.
    for (const path of [exchange.request.path, exchange.request.path.replace(/^\/v1/, '')]) {
      const response = await fetch(`${server.url}${path}`, {
        method: exchange.request.method,
        headers: { ...exchange.request.headers, authorization: `Bearer ${testToken({ projectId: 'v1-replay' })}` },
        body: JSON.stringify(exchange.request.body),
      });
      const body = (await response.json()) as { results?: { toolKey: string }[] };
      expect(response.status, path).toBe(exchange.response.status);
      expect(response.headers.get('content-type')?.split(';')[0]).toBe(
        exchange.response.headers['content-type'].split(';')[0],
      );
      expect(response.headers.get('api-version')).toBe(exchange.response.headers['api-version']);
      expect(breakingDifferences(exchange.response.shape, shapeOf(body)), path).toEqual([]);
      if (exchange.response.topToolKeys !== undefined) {
        const top = (body.results ?? []).slice(0, exchange.response.topToolKeys.length).map((result) => result.toolKey);
        expect(top, `${path}: ranking order of the top results`).toEqual(exchange.response.topToolKeys);
      }
    }
  });
});

describe('breakingDifferences (what counts as breaking)', () => {
  const recorded = shapeOf({ results: [{ toolKey: 'a', relevance: 0.5 }], meta: { ranker: 'bm25' } });

  it('accepts new fields (additive change)', () => {
    const actual = shapeOf({
      results: [{ toolKey: 'a', relevance: 0.5, score: 3 }],
      meta: { ranker: 'bm25', tookMs: 4 },
    });
    expect(breakingDifferences(recorded, actual)).toEqual([]);
  });

  it('flags a removed field, a renamed field and a changed type', () => {
    const actual = shapeOf({ results: [{ key: 'a', relevance: '0.5' }], meta: {} });
    expect(breakingDifferences(recorded, actual)).toEqual([
      '/results/*/toolKey: missing',
      '/results/*/relevance: was "number", now "string"',
      '/meta/ranker: missing',
    ]);
  });
});
