import { describe, expect, it } from 'vitest';
import { capRelevanceDownTheList, DEFAULT_MAX_RESULTS, prepareSearch, readToolList } from '../src/index.js';
import { CATALOG } from '../../../test/fixtures/catalog.js';

describe('rules the service and the client share', () => {
  it("prepareSearch gives maxResults once: the request's, else DEFAULT_MAX_RESULTS (the service and the client cut there)", () => {
    const reading = readToolList({ tools: CATALOG });
    if (!reading.ok) throw new Error('catalog unreadable');
    const prepared = (maxResults?: number) => {
      const preparation = prepareSearch(
        { query: ['file'], ...(maxResults === undefined ? {} : { maxResults }) },
        reading.list,
      );
      if (!preparation.ok) throw new Error('not prepared');
      return preparation.search.maxResults;
    };
    expect(prepared()).toBe(DEFAULT_MAX_RESULTS);
    expect(prepared(2)).toBe(2);
  });

  it('capRelevanceDownTheList caps each relevance at the one above it', () => {
    const ranked = [{ relevance: 0.5 }, { relevance: 0.8 }, { relevance: 0.2 }, { relevance: 0.3 }];
    capRelevanceDownTheList(ranked);
    expect(ranked.map((r) => r.relevance)).toEqual([0.5, 0.5, 0.2, 0.2]);
  });
});
