import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRankCache, rankTools, type ToolInfo } from '../src/index.js';
import { tokenize } from '../src/text/tokenize.js';
import { buildCorpus } from '../src/ranking/corpus.js';
import { scoreSubQuery } from '../src/ranking/score-query.js';

const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.lorem({ maxCount: 12 }),
  fc.constantFrom('', ' ', 'create_issue', '搜索', 'getFileContents'),
);
const schema = fc.oneof(
  fc.constant(undefined),
  fc.object({ maxDepth: 3 }),
  fc.record({
    type: fc.constant('object'),
    properties: fc.dictionary(
      fc.string(),
      fc.record({ description: text, enum: fc.array(fc.anything(), { maxLength: 3 }) }),
    ),
  }),
);
const tool: fc.Arbitrary<ToolInfo> = fc.record(
  {
    toolKey: text,
    toolName: text,
    serverName: text,
    description: text,
    title: text,
    tags: fc.array(text, { maxLength: 3 }),
    inputSchema: schema as fc.Arbitrary<ToolInfo['inputSchema']>,
  },
  { requiredKeys: ['toolKey', 'toolName', 'serverName'] },
);

describe('ranking properties', () => {
  it('orders a sub-query best score first and, on a tie, in list order, also where servers tie', () => {
    // Servers of identical tools tie; their other tools (the affinity tail) are put in order server by
    // server, so this pins that order to a plain sort of everything ranked.
    const names = ['create_issue', 'list_files', 'send_message', 'search_web', 'get_event', 'delete_event', 'notes'];
    const spec = fc.record({ server: fc.integer({ min: 0, max: 5 }), name: fc.constantFrom(...names) });
    fc.assert(
      fc.property(
        fc.constantFrom(
          'create an issue',
          'list my files',
          'send a message',
          'search the web',
          'what is on my calendar',
        ),
        fc.array(spec, { minLength: 1, maxLength: 40 }),
        (query, specs) => {
          const tools: ToolInfo[] = specs.map(({ server, name }, i) => ({
            toolKey: `${server}-${i}`,
            toolName: name,
            serverName: ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta'][server]!,
            description: name.replace('_', ' '),
          }));
          const { order, scores } = scoreSubQuery(buildCorpus(tools, undefined), query, { tools });
          const sorted = [...order].sort((a, b) => scores[b]! - scores[a]! || a - b);
          expect(order).toEqual(sorted);
          expect(new Set(order).size).toBe(order.length);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('never throws, keeps relevance in [0, 1] and non-increasing, returns tools of the list best first within limit', () => {
    const cache = createRankCache({ maxEntries: 50 });
    fc.assert(
      fc.property(
        fc.array(text, { minLength: 1, maxLength: 4 }),
        fc.array(tool, { maxLength: 12 }),
        fc.option(fc.integer({ min: 0, max: 20 })),
        (query, tools, limit) => {
          const ranked = rankTools({ query, tools }, { cache, limit: limit ?? undefined });
          if (limit !== null) expect(ranked.length).toBeLessThanOrEqual(limit);
          for (let i = 0; i < ranked.length; i += 1) {
            const r = ranked[i]!;
            expect(r.relevance).toBeGreaterThanOrEqual(0);
            expect(r.relevance).toBeLessThanOrEqual(1);
            expect(tools[r.index]).toBe(r.tool);
            expect(typeof r.explanation).toBe('string');
            if (i > 0) expect(r.score).toBeLessThanOrEqual(ranked[i - 1]!.score);
            if (i > 0) expect(r.relevance).toBeLessThanOrEqual(ranked[i - 1]!.relevance);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('ranks the same with and without a cache', () => {
    const cache = createRankCache();
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 2 }), fc.array(tool, { maxLength: 8 }), (query, tools) => {
        const view = (list: ReturnType<typeof rankTools>) => list.map((r) => [r.index, r.score, r.relevance]);
        expect(view(rankTools({ query, tools }, { cache }))).toEqual(view(rankTools({ query, tools })));
      }),
      { numRuns: 150 },
    );
  });

  it('ranks a list seen before, then changed, reordered and copied, as if it were new', () => {
    // A shared word pool makes the versions' texts overlap, so cached analyses are found and reused.
    const word = fc.constantFrom('search', 'issue', 'file', 'getFileContents', 'create_issue', '搜索', 'read', 'mail');
    const words = fc.array(word, { minLength: 1, maxLength: 4 }).map((list) => list.join(' '));
    const small: fc.Arbitrary<ToolInfo> = fc.record({
      toolKey: fc.constantFrom('a:x', 'a:y', 'b:x', 'b:z', 'c:w'),
      toolName: words,
      serverName: words,
      description: words,
    });
    const edit = fc.record({ at: fc.nat(), description: words, reverse: fc.boolean(), drop: fc.boolean() });
    fc.assert(
      fc.property(
        words,
        fc.array(small, { minLength: 1, maxLength: 8 }),
        fc.array(edit, { maxLength: 3 }),
        (query, tools, edits) => {
          const cache = createRankCache();
          const view = (list: ReturnType<typeof rankTools>) =>
            list.map((r) => [r.index, r.score, r.relevance, r.explanation]);
          let current = tools;
          rankTools({ query: [query], tools: current }, { cache });
          for (const { at, description, reverse, drop } of edits) {
            current = structuredClone(current);
            current[at % current.length] = { ...current[at % current.length]!, description };
            if (reverse) current.reverse();
            if (drop && current.length > 1) current.splice(at % current.length, 1);
            expect(view(rankTools({ query: [query], tools: current }, { cache }))).toEqual(
              view(rankTools({ query: [query], tools: current })),
            );
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('ranks a list searched again and again (found through its postings) as a list seen for the first time', () => {
    // The first search of a list scans its tokens; later ones read the postings made on the second.
    const word = fc.constantFrom(
      'search',
      'issue',
      'issues',
      'file',
      'files',
      'getFileContents',
      'create_issue',
      '搜索',
      'read',
      'mail',
      'not',
      'and',
    );
    const words = fc.array(word, { minLength: 1, maxLength: 5 }).map((list) => list.join(' '));
    const small: fc.Arbitrary<ToolInfo> = fc.record({
      toolKey: fc.constantFrom('a:x', 'a:y', 'b:x', 'b:z', 'c:w'),
      toolName: words,
      serverName: words,
      description: words,
    });
    fc.assert(
      fc.property(
        fc.array(small, { minLength: 1, maxLength: 10 }),
        fc.array(fc.array(words, { minLength: 1, maxLength: 3 }), { minLength: 2, maxLength: 5 }),
        (tools, queries) => {
          const cache = createRankCache();
          const view = (list: ReturnType<typeof rankTools>) =>
            list.map((r) => [r.index, r.score, r.relevance, r.explanation]);
          for (const query of queries) {
            expect(view(rankTools({ query, tools }, { cache }))).toEqual(view(rankTools({ query, tools })));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('tokenize gives the same terms for a word seen before as for a new one', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (input) => {
        const first = tokenize(input);
        expect(tokenize(`${input} ${input}`)).toEqual([...first, ...first]);
      }),
    );
  });

  it('tokenize never throws and yields no empty terms', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (input) => {
        for (const term of tokenize(input)) expect(term.length).toBeGreaterThan(0);
      }),
    );
  });
});
