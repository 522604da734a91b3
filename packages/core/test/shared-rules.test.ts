import { describe, expect, it } from 'vitest';
import { capRelevanceDownTheList, DEFAULT_MAX_RESULTS, rankRequest, rankTools } from '../src/index.js';
import { CATALOG } from './fixtures/tools.js';

describe('rules the service and the client share', () => {
  it("rankRequest ranks like rankTools, at most the request's maxResults (default DEFAULT_MAX_RESULTS) unless given a limit", () => {
    const tools = Array.from({ length: 3 }, () => CATALOG).flat().map((tool, i) => ({ ...tool, toolKey: `${tool.toolKey}${i}` }));
    const view = (ranked: ReturnType<typeof rankTools>) => ranked.map((r) => [r.index, r.score, r.relevance]);
    expect(view(rankRequest({ query: ['file'], tools }))).toEqual(view(rankTools({ query: ['file'], tools }, { limit: DEFAULT_MAX_RESULTS })));
    expect(rankRequest({ query: ['file'], tools }).length).toBe(DEFAULT_MAX_RESULTS);
    expect(rankRequest({ query: ['file'], tools, maxResults: 2 })).toHaveLength(2);
    expect(rankRequest({ query: ['file'], tools, maxResults: 2 }, { limit: 5 })).toHaveLength(5);
  });

  it('capRelevanceDownTheList caps each relevance at the one above it', () => {
    const ranked = [{ relevance: 0.5 }, { relevance: 0.8 }, { relevance: 0.2 }, { relevance: 0.3 }];
    capRelevanceDownTheList(ranked);
    expect(ranked.map((r) => r.relevance)).toEqual([0.5, 0.5, 0.2, 0.2]);
  });
});
