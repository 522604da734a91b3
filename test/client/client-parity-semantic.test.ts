// Parity with the semantic stage on (EMBEDDINGS=on: the embedded encoder): whenever the cloud's answer says
// it is lexical (`meta.ranker: "bm25"` and no `meta.fused`), the client's local fallback gives the very
// same answer; when meaning moved the ranking, `meta.fused` says so. Real catalogs from ../shared/bench
// (read at run time), the real service on loopback, the real client.
import { createCatalogSearchClient, type CatalogSearchClient, type SearchOutcome } from '@catalog-search/client';
import type { ToolListSearchRequest } from '@catalog-search/core';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BENCH_DIR, loadCatalog } from '../../eval/datasets.js';
import { closedPortUrl } from '../../packages/client/test/loopback.js';
import { startApp, testConfig, type RunningApp } from '../helpers/app.js';
import { testToken } from '../helpers/tokens.js';

const haveBenchData = existsSync(join(BENCH_DIR, 'mcptoolbench_pp', 'catalog.jsonl'));

describe.skipIf(!haveBenchData)('parity with the semantic stage on (EMBEDDINGS=on)', () => {
  let service: RunningApp;
  let cloud: CatalogSearchClient;
  let local: CatalogSearchClient;
  beforeAll(async () => {
    // EMBEDDINGS=on with the other EMBEDDINGS_* defaults: no wait for tool vectors, the default request bound.
    service = await startApp(
      testConfig({
        embeddings: {
          endpoint: undefined,
          threads: 1,
          backgroundNice: 10,
          cacheBytes: 64 * 1024 * 1024,
          waitShare: 0,
          maxQueuedPerProject: 5000,
        },
      }),
    );
    cloud = createCatalogSearchClient({
      baseUrl: service.url,
      token: testToken({ projectId: 'parity' }),
      fallback: false,
    });
    local = createCatalogSearchClient({ baseUrl: await closedPortUrl(), token: 'unused', breaker: false });
  }, 60_000);
  afterAll(() => service?.close());

  /** Searches both ways; the local answer must equal every cloud answer that does not say it was fused. */
  async function compare(request: ToolListSearchRequest): Promise<SearchOutcome> {
    const fromCloud = await cloud.search(request);
    expect(fromCloud.source).toBe('cloud');
    expect(fromCloud.meta.ranker).toBe('bm25');
    if (fromCloud.meta.fused === true) {
      expect(['hybrid', 'partial']).toContain(fromCloud.meta.semantic);
      return fromCloud;
    }
    const fromLocal = await local.search(request);
    expect(fromLocal.source).toBe('local');
    expect(fromLocal.results).toEqual(fromCloud.results);
    return fromCloud;
  }

  it('a list that is being embedded: every answer not marked fused is the local answer; once embedded, answers are marked fused', async () => {
    const catalog = loadCatalog('mcptoolbench_pp', Infinity)!;
    const requests = catalog.queries
      .slice(0, 12)
      .map((query): ToolListSearchRequest => ({ query: [query], tools: catalog.tools }));
    const first = await compare(requests[0]!);
    // The list's first search: nothing embedded yet, nothing waited for.
    expect(first.meta.semantic).toBe('pending');
    for (const request of requests) await compare(request);
    // Until the list's 49 tools are embedded in the background (at nice 10: on a busy machine, late).
    let fused = 0;
    const giveUpAt = Date.now() + 120_000;
    while (fused === 0 && Date.now() < giveUpAt) {
      for (const request of requests) if ((await compare(request)).meta.fused === true) fused += 1;
      if (fused === 0) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(fused).toBeGreaterThan(0);
  }, 180_000);

  it('other catalogs and request shapes: no answer not marked fused differs from the local one', async () => {
    const catalogs = [loadCatalog('livemcpbench', Infinity)!, loadCatalog('toolret_apibank', Infinity)!];
    for (const catalog of catalogs) {
      for (const query of catalog.queries.slice(0, 6)) await compare({ query: [query], tools: catalog.tools });
      await compare({
        query: catalog.queries.slice(0, 2),
        tools: catalog.tools,
        maxResults: 7,
        context: 'Preparing a weekly summary.',
      });
    }
  }, 120_000);
});
