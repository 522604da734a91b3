import { describe, expect, it } from 'vitest';
import {
  createRankCache,
  rankTools,
  rankToolsBySubQuery,
  rankToolsBySubQueryInSteps,
  rankToolsInSteps,
  type ToolInfo,
} from '../src/index.js';

const tools: ToolInfo[] = Array.from({ length: 200 }, (_, at) => ({
  toolKey: `srv${at % 7}:tool_${at}`,
  toolName: `${['list', 'create', 'delete'][at % 3]}_${['invoice', 'ticket', 'contact', 'report'][at % 4]}_${at}`,
  serverName: `Server ${at % 7}`,
  description: `Works with ${['invoices', 'tickets', 'contacts', 'reports'][at % 4]} number ${at}.`,
}));
const query = ['create a ticket', 'list invoices', 'delete the report'];

function drive(steps: Generator<void, ReturnType<typeof rankTools>, void>, between: () => void = () => undefined) {
  let pauses = 0;
  for (;;) {
    const step = steps.next();
    if (step.done) return { ranked: step.value, pauses };
    pauses += 1;
    between();
  }
}

/** A distinct word of letters only for every number (digits would split it into several terms). */
const letters = (n: number) => `zq${n.toString(26).replace(/[0-9]/g, (d) => 'qrstuvwxyz'[Number(d)]!)}`;

const plain = (ranked: ReturnType<typeof rankTools>) =>
  ranked.map(({ index, score, relevance, explanation }) => ({ index, score, relevance, explanation }));

describe('rankToolsInSteps', () => {
  it('pauses once per sub-query and ranks exactly as rankTools', () => {
    const { ranked, pauses } = drive(rankToolsInSteps({ query, tools }, { limit: 20 }));
    expect(pauses).toBe(query.length);
    expect(plain(ranked)).toEqual(plain(rankTools({ query, tools }, { limit: 20 })));
  });

  it("still ranks correctly when other rankings run while it is paused, and fill its project's vocabulary", () => {
    const cache = createRankCache();
    const epoch = cache.vocabulary.epoch;
    let other = 0;
    // Each pause ranks a list of ~40,000 new words with the same cache (the same project), which renews
    // that project's vocabulary (60,000 words), and one with none, which uses another vocabulary.
    const { ranked } = drive(rankToolsInSteps({ query, tools }, { limit: 20, cache }), () => {
      other += 1;
      const list = Array.from({ length: 200 }, (_, t) => ({
        toolKey: `o:${t}`,
        toolName: 'other',
        serverName: 'O',
        description: Array.from({ length: 200 }, (_, w) => letters(other * 1e6 + t * 1e3 + w)).join(' '),
      }));
      rankTools({ query: ['anything'], tools: list }, { cache });
      rankTools({ query: ['anything else'], tools: list });
    });
    expect(cache.vocabulary.epoch).toBeGreaterThan(epoch);
    expect(plain(ranked)).toEqual(plain(rankTools({ query, tools }, { limit: 20 })));
  });
});

describe('rankToolsInSteps with stepTools', () => {
  it('pauses while a new list is analysed, ranks exactly as rankTools, and pauses no more once it is cached', () => {
    const cache = createRankCache();
    const cold = drive(rankToolsInSteps({ query, tools }, { limit: 20, cache, stepTools: 32 }));
    // 200 tools in chunks of 32: six pauses before the last chunk, which buildCorpus analyses.
    expect(cold.pauses).toBe(6 + query.length);
    expect(cache.analysed).toBe(tools.length);
    expect(plain(cold.ranked)).toEqual(plain(rankTools({ query, tools }, { limit: 20 })));
    const warm = drive(rankToolsInSteps({ query, tools: [...tools] }, { limit: 20, cache, stepTools: 32 }));
    expect(warm.pauses).toBe(query.length);
    expect(cache.analysed).toBe(tools.length);
    expect(plain(warm.ranked)).toEqual(plain(cold.ranked));
  });

  it('ranks correctly when its project fills and renews the vocabulary while it analyses', () => {
    const cache = createRankCache();
    const epoch = cache.vocabulary.epoch;
    let other = 0;
    const { ranked } = drive(rankToolsInSteps({ query, tools }, { limit: 20, cache, stepTools: 32 }), () => {
      other += 1;
      const list = Array.from({ length: 200 }, (_, t) => ({
        toolKey: `o:${t}`,
        toolName: 'other',
        serverName: 'O',
        description: Array.from({ length: 200 }, (_, w) => letters(other * 1e6 + t * 1e3 + w)).join(' '),
      }));
      rankTools({ query: ['anything'], tools: list }, { cache });
    });
    expect(cache.vocabulary.epoch).toBeGreaterThan(epoch);
    expect(plain(ranked)).toEqual(plain(rankTools({ query, tools }, { limit: 20 })));
  });
});

describe('rankToolsBySubQuery', () => {
  // The LLM stage's prompt takes each step's best tools from these orders instead of ranking each
  // sub-query again: they must be the orders rankTools gives each sub-query alone.
  // One server named for a platform, so that a context naming it reorders (named-platform.ts).
  const onPlatforms = tools.map((tool) => (tool.serverName === 'Server 3' ? { ...tool, serverName: 'Trello' } : tool));
  const orderOf = (input: { query: string[]; tools: ToolInfo[]; context?: string }) =>
    rankTools(input).map((entry) => entry.index);

  it('is checked with a context that moves the ranking', () => {
    const context = 'our tickets live in Trello';
    expect(orderOf({ query: [query[0]!], tools: onPlatforms, context })).not.toEqual(
      orderOf({ query: [query[0]!], tools: onPlatforms }),
    );
  });

  it.each([
    ['without context', undefined],
    ['with a context naming a platform', 'our tickets live in Trello'],
  ])('gives each sub-query the order rankTools gives it alone (%s)', (_label, context) => {
    const input = { query: [...query, '  '], tools: onPlatforms, ...(context ? { context } : {}) };
    const { ranked, bySubQuery } = rankToolsBySubQuery(input);
    expect(plain(ranked)).toEqual(plain(rankTools(input)));
    // Blank sub-queries rank nothing and have no order of their own.
    expect(bySubQuery).toHaveLength(query.length);
    query.forEach((sub, at) => {
      const alone = orderOf({ query: [sub], tools: onPlatforms, ...(context ? { context } : {}) });
      expect(bySubQuery[at]).toEqual(alone);
      expect(alone.length).toBeGreaterThan(0);
    });
  });

  it('gives no orders when not asked for them (the steps alone)', () => {
    const steps = rankToolsBySubQueryInSteps({ query, tools }, { limit: 5 }, false);
    let step = steps.next();
    while (!step.done) step = steps.next();
    expect(step.value.bySubQuery).toEqual([]);
    expect(plain(step.value.ranked)).toEqual(plain(rankTools({ query, tools }, { limit: 5 })));
  });
});
