import { describe, expect, it } from 'vitest';
import { rankTools } from '../src/index.js';
import { RELEVANCE_SET } from '../../../test/fixtures/relevance-set.js';
import { CATALOG } from '../../../test/fixtures/catalog.js';

describe('named relevance set', () => {
  it.each(RELEVANCE_SET.map((c) => [c.query.join(' | '), c] as const))('%s', (_name, { query, top, why }) => {
    const ranked = rankTools({ query, tools: CATALOG }, { limit: 3 });
    expect(ranked[0]?.tool.toolKey, why).toBe(top);
  });
});
