import { describe, expect, it } from 'vitest';
import { createRankCache, rankTools, toSearchResult, type ToolInfo } from '../src/index.js';
import { EXACT_RELEVANCE } from '../src/ranking/calibrate.js';
import { tokenize } from '../src/text/tokenize.js';
import { CATALOG } from '../../../test/fixtures/catalog.js';
import { madeUpWord } from '../../../test/fixtures/words.js';

const keys = (query: string[], tools: ToolInfo[] = CATALOG) => rankTools({ query, tools }).map((r) => r.tool.toolKey);
const top = (query: string[], tools: ToolInfo[] = CATALOG) => rankTools({ query, tools })[0];

describe('BM25F fields', () => {
  it('a word in the tool name outweighs the same word in a description', () => {
    const tools: ToolInfo[] = [
      { toolKey: 'a:notes', toolName: 'notes', serverName: 'A', description: 'Keep notes; can also translate them.' },
      {
        toolKey: 'b:translate',
        toolName: 'translate',
        serverName: 'B',
        description: 'Turn text into another language.',
      },
    ];
    expect(keys(['translate'], tools)[0]).toBe('b:translate');
  });

  it('normalises description length: a short focused description beats a long one', () => {
    const filler = 'It also does many unrelated things such as counting, sorting and formatting. '.repeat(8);
    const tools: ToolInfo[] = [
      { toolKey: 'a:x', toolName: 'x', serverName: 'A', description: `Convert currency amounts. ${filler}` },
      { toolKey: 'b:y', toolName: 'y', serverName: 'B', description: 'Convert currency amounts.' },
    ];
    expect(keys(['convert currency'], tools)[0]).toBe('b:y');
  });

  it('scores input parameter names and descriptions', () => {
    expect(keys(['file path'])).toContain('filesystem:read_file');
    expect(top(['owner repo title body'])?.tool.toolKey).toBe('github:create_issue');
  });

  it('a rare word counts more than a common one', () => {
    // "github" occurs in four tools, "slack" in two: a request naming both prefers the Slack tools.
    expect(top(['slack github'])?.tool.serverName).toBe('Slack');
  });

  it('demotes a tool that matches a word the request excludes', () => {
    const scoreOf = (query: string) =>
      rankTools({ query: [query], tools: CATALOG }).find((r) => r.tool.toolKey === 'web:web_search')!.score;
    expect(scoreOf('search the web for news but not images')).toBeLessThan(scoreOf('search the web for news'));
    // Excluding what the best tool is about hands the first place to another.
    expect(top(['search files, not the web'])?.tool.toolKey).toBe('filesystem:search_files');
  });
});

describe('exact-name short-circuit', () => {
  it.each([
    'create_pull_request',
    'createPullRequest',
    'github:create_pull_request',
    'use `create_pull_request` to open it',
  ])('%s puts the named tool first with high relevance', (query) => {
    const first = top([query]);
    expect(first?.tool.toolKey).toBe('github:create_pull_request');
    expect(first?.relevance).toBeGreaterThanOrEqual(EXACT_RELEVANCE);
    expect(first?.explanation).toContain('names this tool exactly');
  });

  it('an ordinary word that happens to be a tool name does not short-circuit', () => {
    expect(top(['geocode the address of the office'])?.relevance).toBeLessThan(EXACT_RELEVANCE);
  });
});

describe('multi-query fusion', () => {
  it("puts every sub-query's best tool near the top, even when one step is wordier", () => {
    const ranked = keys([
      'search the web for recent news articles and pages about electric cars and images of them',
      'post a message to slack',
    ]);
    expect(ranked.slice(0, 2).sort()).toEqual(['slack:post_message', 'web:web_search']);
  });

  it('explains which sub-query a tool answers', () => {
    const ranked = rankTools({ query: ['weather forecast', 'post a message to slack'], tools: CATALOG });
    const slack = ranked.find((r) => r.tool.toolKey === 'slack:post_message');
    expect(slack?.explanation).toMatch(/^query 2: /);
  });

  it('a sub-query that nothing fits does not push its weak matches above good ones', () => {
    const ranked = keys(['weather forecast for tomorrow', 'zqxv blorp new']);
    expect(ranked[0]).toBe('weather:get_forecast');
  });

  it('ignores blank sub-queries', () => {
    expect(keys(['  ', 'weather forecast'])[0]).toBe('weather:get_forecast');
  });
});

describe('calibrated relevance', () => {
  it('is high when a tool matches the request well, whatever the other tools are', () => {
    const alone = top(
      ['weather forecast'],
      CATALOG.filter((t) => t.toolKey === 'weather:get_forecast'),
    )!;
    const among = top(['weather forecast'])!;
    expect(among.relevance).toBeGreaterThan(0.6);
    expect(alone.relevance).toBeGreaterThan(0.6);
  });

  it('stays low when nothing in the list fits (unlike score / maxScore, which gives 1.0)', () => {
    const first = top(['book a table for two at an italian restaurant tonight']);
    expect(first?.relevance ?? 0).toBeLessThan(0.35);
  });

  it('is 0-match free: nonsense gets no results at all', () => {
    expect(rankTools({ query: ['qwzx vlorpt snarfle'], tools: CATALOG })).toEqual([]);
  });

  it('rises with the share of the request that a tool covers', () => {
    const partial = top(['forecast tides surfing swell'])!.relevance;
    const full = top(['weather forecast'])!.relevance;
    expect(partial).toBeLessThan(full);
  });
});

describe('explanations', () => {
  it('say which query words hit which fields and how much of the request that covers', () => {
    const first = top(['read the contents of a local file'])!;
    expect(first.explanation).toBe(
      'matched "read", "file" in name; "contents", "local" in description (4 of 4 query terms)',
    );
  });

  it('mention words the request excludes', () => {
    const ranked = rankTools({ query: ['search the web without images'], tools: CATALOG });
    expect(ranked.find((r) => r.tool.toolKey === 'web:web_search')?.explanation).toContain('excluded "images"');
  });

  it('are what toSearchResult puts on the wire', () => {
    const first = top(['weather forecast'])!;
    expect(toSearchResult(first)).toMatchObject({
      toolKey: 'weather:get_forecast',
      relevance: first.relevance,
      explanation: first.explanation,
    });
  });
});

describe('results', () => {
  it('returns matching tools best first, with their list index and at most `limit`', () => {
    const ranked = rankTools({ query: ['file'], tools: CATALOG }, { limit: 2 });
    expect(ranked).toHaveLength(2);
    for (const r of ranked) expect(CATALOG[r.index]).toBe(r.tool);
    expect(rankTools({ query: ['file'], tools: CATALOG }, { limit: Infinity }).length).toBeGreaterThan(2);
  });

  it('lists other tools of a matching server after every direct match, with relevance 0', () => {
    const ranked = rankTools({ query: ['geocode'], tools: CATALOG });
    expect(ranked.map((r) => r.tool.toolKey)).toEqual(['maps:geocode', 'maps:get_directions']);
    expect(ranked[1]?.relevance).toBe(0);
    expect(ranked[1]?.explanation).toContain('other tools of its server');
  });

  it('lists each tool once, also when the query names a tool whose server matches', () => {
    const ranked = keys(['get_directions to the geocode of an address']);
    expect(ranked[0]).toBe('maps:get_directions');
    expect(new Set(ranked).size).toBe(ranked.length);
  });

  it('returns nothing for an empty list', () => {
    expect(rankTools({ query: ['x'], tools: [] })).toEqual([]);
  });

  it('truncates descriptions to maxDescriptionChars before ranking', () => {
    const tools: ToolInfo[] = [
      { toolKey: 'a:t', toolName: 't', serverName: 'A', description: `${'padding '.repeat(50)}kangaroo` },
    ];
    expect(rankTools({ query: ['kangaroo'], tools }, { maxDescriptionChars: 100 })).toEqual([]);
    expect(rankTools({ query: ['kangaroo'], tools })).toHaveLength(1);
  });
});

describe('rank cache', () => {
  it('gives the same ranking with and without a cache, and reuses analyses by content', () => {
    const cache = createRankCache();
    const query = ['search files on github'];
    const plain = rankTools({ query, tools: CATALOG }).map(({ tool, score, relevance }) => [
      tool.toolKey,
      score,
      relevance,
    ]);
    const cold = rankTools({ query, tools: CATALOG }, { cache }).map(({ tool, score, relevance }) => [
      tool.toolKey,
      score,
      relevance,
    ]);
    expect(cache.size).toBe(CATALOG.length);
    const copies = structuredClone(CATALOG);
    const warm = rankTools({ query, tools: copies }, { cache }).map(({ tool, score, relevance }) => [
      tool.toolKey,
      score,
      relevance,
    ]);
    expect(cold).toEqual(plain);
    expect(warm).toEqual(plain);
    expect(cache.size).toBe(CATALOG.length);
  });

  it('keeps no more than a cut of hostile tags, parameter names and enum values (a cached tool stays small)', () => {
    const huge = 'x'.repeat(1_000_000);
    const hostile: ToolInfo = {
      toolKey: 'h:tool',
      toolName: 'tool',
      serverName: 'H',
      tags: [huge, ...Array.from({ length: 1_000 }, (_, i) => `tag${i}`)],
      inputSchema: { type: 'object', properties: { [huge]: { type: 'string', enum: [huge, 'b'] } } },
    };
    const cache = createRankCache();
    rankTools({ query: ['tool'], tools: [hostile] }, { cache });
    // Each text cut to 300 characters, at most 64 tags: a few KB, not the megabytes sent (beyond what
    // an empty cache holds: its vocabulary's run memo).
    expect(cache.bytes - createRankCache().bytes).toBeLessThan(30_000);
  });

  it('counts the postings a list gets when it is searched again in its bytes', () => {
    const cache = createRankCache();
    const query = ['search files on github'];
    const first = rankTools({ query, tools: CATALOG }, { cache });
    const afterFirst = cache.bytes;
    const second = rankTools({ query, tools: CATALOG }, { cache });
    // 4 bytes per token of the list, besides its term ids.
    const afterSecond = cache.bytes;
    expect(afterSecond).toBeGreaterThan(afterFirst);
    rankTools({ query: ['weather forecast'], tools: CATALOG }, { cache });
    expect(cache.bytes).toBe(afterSecond);
    expect(second.map((r) => [r.index, r.score, r.relevance, r.explanation])).toEqual(
      first.map((r) => [r.index, r.score, r.relevance, r.explanation]),
    );
  });

  it("counts each list's action terms in its bytes once the everyday rules read them", () => {
    const cache = createRankCache();
    rankTools({ query: ['weather forecast'], tools: CATALOG }, { cache });
    rankTools({ query: ['weather forecast'], tools: CATALOG }, { cache });
    const before = cache.bytes;
    // A request that starts with an action asks each matched tool's action term (4 bytes a tool).
    const first = rankTools({ query: ['create an issue'], tools: CATALOG }, { cache });
    const after = cache.bytes;
    expect(after - before).toBeGreaterThanOrEqual(4 * CATALOG.length);
    const again = rankTools({ query: ['create an issue'], tools: CATALOG }, { cache });
    expect(cache.bytes).toBe(after);
    expect(again.map((r) => [r.index, r.score, r.relevance, r.explanation])).toEqual(
      first.map((r) => [r.index, r.score, r.relevance, r.explanation]),
    );
    expect(rankTools({ query: ['create an issue'], tools: CATALOG }).map((r) => [r.index, r.score])).toEqual(
      first.map((r) => [r.index, r.score]),
    );
  });

  it('sees a changed tool as new content, whichever version comes next', () => {
    const cache = createRankCache();
    rankTools({ query: ['x'], tools: CATALOG }, { cache });
    const changed = CATALOG.map((t) =>
      t.toolKey === 'weather:get_forecast' ? { ...t, description: 'Tide tables for surfers.' } : t,
    );
    expect(rankTools({ query: ['tide'], tools: changed }, { cache })[0]?.tool.toolKey).toBe('weather:get_forecast');
    expect(rankTools({ query: ['tide'], tools: structuredClone(CATALOG) }, { cache })).toEqual([]);
    const schemaChanged = structuredClone(CATALOG);
    schemaChanged.find((t) => t.toolKey === 'weather:get_forecast')!.inputSchema = {
      type: 'object',
      properties: { tide: { type: 'string' } },
    };
    expect(rankTools({ query: ['tide'], tools: schemaChanged }, { cache })[0]?.tool.toolKey).toBe(
      'weather:get_forecast',
    );
    expect(cache.size).toBe(CATALOG.length);
  });

  it('ranks two different tools that share a toolKey each by its own content', () => {
    const cache = createRankCache();
    const tools: ToolInfo[] = [
      { toolKey: 'dup:tool', toolName: 'tool', serverName: 'dup', description: 'Tide tables for surfers.' },
      { toolKey: 'dup:tool', toolName: 'tool', serverName: 'dup', description: 'Snow depth at ski resorts.' },
    ];
    for (let round = 0; round < 3; round += 1) {
      expect(
        rankTools({ query: ['snow depth'], tools: structuredClone(tools) }, { cache }).map((r) => r.index),
      ).toEqual([1, 0]);
      expect(
        rankTools({ query: ['tide tables'], tools: structuredClone(tools) }, { cache }).map((r) => r.index),
      ).toEqual([0, 1]);
    }
  });

  it('notices a field replaced on the same tool object', () => {
    const cache = createRankCache();
    const tools = structuredClone(CATALOG);
    rankTools({ query: ['tide'], tools }, { cache });
    const forecast = tools.find((t) => t.toolKey === 'weather:get_forecast')!;
    forecast.description = 'Tide tables for surfers.';
    expect(rankTools({ query: ['tide'], tools }, { cache })[0]?.tool.toolKey).toBe('weather:get_forecast');
  });

  it('ranks the same array again as it was, and notices a field replaced after that', () => {
    const cache = createRankCache();
    const tools = structuredClone(CATALOG);
    const ranking = () => rankTools({ query: ['tide'], tools }, { cache }).map(({ index, score }) => [index, score]);
    const first = ranking();
    const analysed = cache.analysed;
    expect(ranking()).toEqual(first);
    expect(cache.analysed).toBe(analysed);
    const forecast = tools.find((t) => t.toolKey === 'weather:get_forecast')!;
    forecast.description = 'Tide tables for surfers.';
    expect(rankTools({ query: ['tide'], tools }, { cache })[0]?.tool.toolKey).toBe('weather:get_forecast');
    expect(cache.analysed).toBe(analysed + 1);
  });

  it('analyses the same array again once the vocabulary was renewed', () => {
    const cache = createRankCache();
    const tools = structuredClone(CATALOG);
    const ranking = () =>
      rankTools({ query: ['search files on github'], tools }, { cache }).map(({ index, score }) => [index, score]);
    const first = ranking();
    ranking();
    rankTools({ query: ['x'], tools: neverSeenWords(70_000, 0) }, { cache });
    const before = cache.analysed;
    expect(ranking()).toEqual(first);
    expect(cache.analysed - before).toBe(CATALOG.length);
  });

  it('notices tools replaced or reordered in the same array', () => {
    const cache = createRankCache();
    const tools = structuredClone(CATALOG);
    rankTools({ query: ['tide'], tools }, { cache });
    const at = tools.findIndex((t) => t.toolKey === 'weather:get_forecast');
    tools[at] = { ...tools[at]!, description: 'Tide tables for surfers.' };
    expect(rankTools({ query: ['tide'], tools }, { cache })[0]?.tool.toolKey).toBe('weather:get_forecast');
    tools.reverse();
    const fresh = rankTools({ query: ['tide tables'], tools }).map(({ index, score }) => [index, score]);
    expect(rankTools({ query: ['tide tables'], tools }, { cache }).map(({ index, score }) => [index, score])).toEqual(
      fresh,
    );
  });

  it('finds cached tools by content when a new list has them at other positions', () => {
    const cache = createRankCache();
    rankTools({ query: ['x'], tools: structuredClone(CATALOG) }, { cache });
    // New objects in a new order: at each position the last list had another tool (the cache looks
    // there first), and one of them changed since it was analysed.
    const shuffled = structuredClone(CATALOG).reverse();
    const last = shuffled.length - 1;
    shuffled[last] = { ...shuffled[last]!, description: 'Tide tables for surfers.' };
    const fresh = rankTools({ query: ['tide tables'], tools: shuffled }).map(({ index, score, relevance }) => [
      index,
      score,
      relevance,
    ]);
    expect(fresh[0]?.[0]).toBe(last);
    expect(
      rankTools({ query: ['tide tables'], tools: shuffled }, { cache }).map(({ index, score, relevance }) => [
        index,
        score,
        relevance,
      ]),
    ).toEqual(fresh);
    expect(cache.size).toBe(CATALOG.length);
  });

  it("analyses cached tools again when the project's own vocabulary was renewed in between", () => {
    const cache = createRankCache();
    const query = ['search files on github'];
    const ranking = (tools: ToolInfo[], options = {}) =>
      rankTools({ query, tools }, options).map(({ tool, score, relevance }) => [tool.toolKey, score, relevance]);
    const plain = ranking(CATALOG);
    expect(ranking(CATALOG, { cache })).toEqual(plain);
    // More distinct words than a vocabulary keeps, ranked with the same cache: the next ranking starts
    // a new vocabulary, in which the cached analyses' term ids mean other words.
    rankTools({ query, tools: neverSeenWords(70_000, 0) }, { cache });
    const before = cache.analysed;
    // Reversed, so that the list is prepared anew rather than found among the cached corpora.
    const reversed = structuredClone(CATALOG).reverse();
    expect(ranking(reversed, { cache })).toEqual(ranking(reversed));
    expect(cache.analysed - before).toBe(CATALOG.length);
  });

  it("never analyses a project's list again for another project's never-seen words", () => {
    const mine = createRankCache();
    const theirs = createRankCache();
    const query = ['search files on github'];
    rankTools({ query, tools: CATALOG }, { cache: mine });
    expect(mine.analysed).toBe(CATALOG.length);
    const warm = rankTools({ query, tools: CATALOG }, { cache: mine }).map(({ tool, score }) => [tool.toolKey, score]);
    // Another project's lists (with its cache, and with none) and `tokenize` bring 3 × 70,000 words no
    // vocabulary has seen: more than one keeps. With one vocabulary per process each renewed it, and
    // this project's next search analysed its whole list again.
    for (let round = 0; round < 3; round += 1) {
      rankTools({ query, tools: neverSeenWords(70_000, (round + 1) * 100_000) }, { cache: theirs });
      rankTools({ query, tools: neverSeenWords(70_000, (round + 1) * 1_000_000) });
      tokenize(Array.from({ length: 70_000 }, (_, i) => madeUpWord(10_000_000 * (round + 1) + i)).join(' '));
    }
    expect(theirs.analysed).toBeGreaterThan(0);
    const after = rankTools({ query, tools: structuredClone(CATALOG) }, { cache: mine });
    expect(mine.analysed).toBe(CATALOG.length);
    expect(after.map(({ tool, score }) => [tool.toolKey, score])).toEqual(warm);
  });

  it('is bounded by maxEntries and can be cleared', () => {
    const cache = createRankCache({ maxEntries: 3 });
    rankTools({ query: ['file'], tools: CATALOG }, { cache });
    expect(cache.size).toBe(3);
    cache.clear();
    expect(cache.size).toBe(0);
  });
});

/** Tools that together bring `words` distinct made-up words, numbered from `from` (200 a tool, within its description's 2,000 characters). */
function neverSeenWords(words: number, from: number): ToolInfo[] {
  const perTool = 200;
  return Array.from({ length: Math.ceil(words / perTool) }, (_, t) => ({
    toolKey: `flood:tool_${from + t}`,
    toolName: `tool_${t}`,
    serverName: 'Flood',
    description: Array.from({ length: perTool }, (_, w) => madeUpWord(from + t * perTool + w)).join(' '),
  }));
}
