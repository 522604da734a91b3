import { describe, expect, it } from 'vitest';
import { createCatalogSearchClient } from '@catalog-search/client';
import { RELEVANCE_SET } from '../../../test/fixtures/relevance-set.js';
import { CATALOG } from '../../../test/fixtures/catalog.js';
import { closedPortUrl } from './loopback.js';

// The named relevance set core's ranking is held to (packages/core/test/relevance-set.test.ts), run
// through the client's local fallback: the service unreachable, the router still gets the same tool first.
describe('named relevance set through the local fallback', async () => {
  const client = createCatalogSearchClient({
    baseUrl: await closedPortUrl(),
    token: 'test-token',
    breaker: false,
    timeoutMs: 5000,
  });

  it.each(RELEVANCE_SET.map((c) => [c.query.join(' | '), c] as const))('%s', async (_name, { query, top, why }) => {
    const outcome = await client.search({ query, tools: CATALOG, maxResults: 3 });
    expect(outcome.source).toBe('local');
    expect(outcome.fallbackReason).toBe('network');
    expect(outcome.results[0]?.toolKey, why).toBe(top);
  });
});
