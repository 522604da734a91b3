import { describe, expect, it } from 'vitest';
import { adjustRelevance, rankTools, TAG_BOOST, type ToolInfo } from '../src/index.js';

const TOOLS: ToolInfo[] = [
  { toolKey: 'a:store_file', toolName: 'store_file', serverName: 'A', description: 'Store data in a file on disk' },
  {
    toolKey: 'b:store_memory',
    toolName: 'store_memory',
    serverName: 'B',
    description: 'Store data as a memory',
    tags: ['Storage', 'memory'],
  },
  // On a server that matches (B's other tool does), so the ranking lists it with relevance 0.
  {
    toolKey: 'b:web_search',
    toolName: 'web_search',
    serverName: 'B',
    description: 'Search the web',
    tags: ['storage'],
  },
];

describe('boost.tags and minRelevance', () => {
  const ranked = rankTools({ query: ['store data'], tools: TOOLS });
  const before = new Map(ranked.map((entry) => [entry.tool.toolKey, entry.relevance]));

  it(`adds ${TAG_BOOST} calibrated relevance per matching tag, reorders, and names the boost`, () => {
    const boosted = adjustRelevance(ranked, { boost: { tags: ['storage', 'MEMORY'] } });
    const memory = boosted.find((entry) => entry.tool.toolKey === 'b:store_memory')!;
    expect(memory.relevance).toBe(
      Math.min(1, Math.round((before.get('b:store_memory')! + 2 * TAG_BOOST) * 1000) / 1000),
    );
    expect(memory.explanation).toMatch(/boosted \+0\.4 for 2 matching tags \(boost\.tags\)/);
    expect(boosted[0]!.tool.toolKey).toBe('b:store_memory');
    const unboosted = boosted.find((entry) => entry.tool.toolKey === 'a:store_file')!;
    expect(unboosted.relevance).toBe(before.get('a:store_file'));
    expect(unboosted.explanation).not.toMatch(/boost/);
  });

  it('never raises a tool that did not match the request', () => {
    expect(before.get('b:web_search')).toBe(0);
    const boosted = adjustRelevance(ranked, { boost: { tags: ['storage'] } });
    const unmatched = boosted.find((entry) => entry.tool.toolKey === 'b:web_search');
    expect(unmatched?.relevance ?? 0).toBe(0);
    expect(unmatched?.explanation ?? '').not.toMatch(/boost/);
  });

  it('minRelevance leaves out what is below it: nothing rather than unrelated tools', () => {
    expect(adjustRelevance(ranked, { minRelevance: 1 })).toEqual([]);
    const some = adjustRelevance(ranked, { minRelevance: before.get('b:store_memory')! });
    expect(some.every((entry) => entry.relevance >= before.get('b:store_memory')!)).toBe(true);
    expect(some.length).toBeGreaterThan(0);
  });
});
