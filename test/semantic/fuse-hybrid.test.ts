// The hybrid ranking as a pure function, on lexical rankings from core's rankTools.
import { rankTools, type ToolInfo } from '@catalog-search/core';
import { describe, expect, it } from 'vitest';
import { DEFAULT_FUSION, fuseHybrid, semanticRelevance } from '../../src/semantic/fuse-hybrid.js';

const tools: ToolInfo[] = Array.from({ length: 40 }, (_, i) => ({
  toolKey: `s:tool_${i}`,
  toolName: `tool_${i}`,
  serverName: 's',
  description:
    i === 0 ? 'Post a message to a Slack channel.' : i === 1 ? 'Post a reply in a thread.' : `Unrelated helper ${i}.`,
}));

/** Similarities around 0.2 with a little spread, and `overrides` where a test wants a standout. */
function similarities(overrides: Record<number, number> = {}): Float64Array {
  const values = new Float64Array(tools.length).map((_, i) => 0.2 + ((i * 7) % 5) * 0.01);
  for (const [index, value] of Object.entries(overrides)) values[Number(index)] = value;
  return values;
}

describe('fuseHybrid', () => {
  it('keeps a lexically strong match on top, even when another tool is far closer in meaning (which moves up)', () => {
    const lexical = rankTools({ query: ['post a message to the slack channel'], tools });
    expect(lexical[0]!.relevance).toBeGreaterThanOrEqual(0.5);
    const fused = fuseHybrid(lexical, tools, similarities({ 30: 0.9 }));
    expect(fused[0]!.tool.toolKey).toBe('s:tool_0');
    const before = lexical.findIndex((ranked) => ranked.index === 30);
    const after = fused.findIndex((ranked) => ranked.index === 30);
    expect(after).toBeLessThan(before);
  });

  it('a tool found by meaning only gets a relevance from how far it stands out, and says it matched by meaning', () => {
    const fused = fuseHybrid([], tools, similarities({ 12: 0.6 }));
    const top = fused[0]!;
    expect(top.tool.toolKey).toBe('s:tool_12');
    expect(top.relevance).toBeGreaterThan(0.2);
    expect(top.relevance).toBeLessThanOrEqual(0.6);
    expect(top.explanation).toMatch(/matched by meaning/);
    // Relevance never rises down the list.
    for (let i = 1; i < fused.length; i += 1) expect(fused[i]!.relevance).toBeLessThanOrEqual(fused[i - 1]!.relevance);
  });

  it('a request every tool is about equally (un)like scores low, however high the raw similarity', () => {
    const flat = similarities();
    flat.forEach((value, i) => (flat[i] = value + 0.5));
    expect(fuseHybrid([], tools, flat)[0]!.relevance).toBeLessThan(0.2);
  });

  it('adds to each lexical score, as a share of the best, what standing out by meaning gives: 0 up to zFloor, `weight` from zFloor + zSpan', () => {
    // Three weak lexical matches (made up: relevance 0.1, scores 3, 2, 1) and similarities that rank
    // tools 5, 2, 7, 9 first: tool 2 is found both ways, 5, 7 and 9 only by meaning.
    const weak = (index: number, score: number) => ({
      tool: tools[index]!,
      index,
      score,
      relevance: 0.1,
      explanation: 'lexical',
    });
    const lexical = [weak(4, 3), weak(2, 2), weak(6, 1)];
    const similarity = new Float64Array(tools.length).fill(0.1);
    similarity[5] = 0.9;
    similarity[2] = 0.8;
    similarity[7] = 0.7;
    similarity[9] = 0.5;
    const options = { weight: 0.4, weakWeight: 0.4, zFloor: 1, zSpan: 3, zCap: 1, depth: 40, strongRelevance: 0.97 };
    const fused = fuseHybrid(lexical, tools, similarity, options);
    const mean = similarity.reduce((sum, s) => sum + s, 0) / similarity.length;
    const spread = Math.sqrt(similarity.reduce((sum, s) => sum + s * s, 0) / similarity.length - mean * mean);
    const add = (s: number) => 0.4 * Math.min(1, Math.max(0, ((s - mean) / spread - 1) / 3));
    expect(add(0.5)).toBeGreaterThan(0); // z ≈ 1.75: above the floor, below the cap
    expect(add(0.9)).toBeLessThan(0.4);
    const expected = new Map([
      [4, 1],
      [2, 2 / 3 + add(0.8)],
      [6, 1 / 3],
      [5, add(0.9)],
      [7, add(0.7)],
      [9, add(0.5)],
    ]);
    const order = [...expected].sort((a, b) => b[1] - a[1]).map(([index]) => index);
    expect(fused.slice(0, 6).map((ranked) => ranked.index)).toEqual(order);
    expect(fused.find((ranked) => ranked.index === 2)!.score).toBeCloseTo(2 / 3 + add(0.8), 5);
    // A tool that does not stand out (z below the floor) adds next to nothing: below every word match.
    expect(fused.findIndex((ranked) => ranked.index === 20)).toBeGreaterThan(
      fused.findIndex((ranked) => ranked.index === 6),
    );
    expect(fused.find((ranked) => ranked.index === 20)!.score).toBeLessThan(1e-5);
    // Only `depth` most similar tools are fused in.
    expect(fuseHybrid(lexical, tools, similarity, { ...options, depth: 2 }).some((ranked) => ranked.index === 7)).toBe(
      false,
    );
  });

  it('meaning decides among weak word matches, words win by a wide margin, and a tool of relevance 0 never ranks above a meaning match', () => {
    const entry = (index: number, score: number, relevance: number) => ({
      tool: tools[index]!,
      index,
      score,
      relevance,
      explanation: 'lexical',
    });
    const similarity = similarities({ 11: 0.5, 12: 0.45 });
    // Weak and close: tool 12 (second by words, close in meaning) passes tool 10.
    const close = fuseHybrid([entry(10, 1.0, 0.2), entry(12, 0.95, 0.2)], tools, similarity);
    expect(close[0]!.index).toBe(12);
    // Strong by a wide margin: tool 10 stays first.
    const wide = fuseHybrid([entry(10, 10, 0.8), entry(12, 2, 0.2)], tools, similarity);
    expect(wide[0]!.index).toBe(10);
    // Listed for its server only (relevance 0): below tool 11, found by meaning only.
    const tail = fuseHybrid([entry(10, 1.0, 0.3), entry(13, 0.02, 0)], tools, similarity);
    expect(tail.findIndex((ranked) => ranked.index === 11)).toBeLessThan(
      tail.findIndex((ranked) => ranked.index === 13),
    );
  });

  it('tools without vectors (NaN) rank lexically only; with no vectors at all the lexical ranking is unchanged', () => {
    const lexical = rankTools({ query: ['post a reply in a thread'], tools });
    const none = new Float64Array(tools.length).fill(Number.NaN);
    expect(fuseHybrid(lexical, tools, none).map((ranked) => ranked.index)).toEqual(
      lexical.map((ranked) => ranked.index),
    );
    const some = similarities({ 20: 0.9 });
    some[25] = Number.NaN;
    expect(fuseHybrid(lexical, tools, some).some((ranked) => ranked.index === 25)).toBe(
      lexical.some((ranked) => ranked.index === 25),
    );
  });

  it('is pure: the lexical entries keep their score and relevance, and the fused ones their explanations', () => {
    const lexical = rankTools({ query: ['post a reply in a thread'], tools });
    // Weak entries below a tool found by meaning only (relevance 0 here): capping down the fused list
    // lowers the fused entries' relevance, never the lexical ones'.
    const weak = lexical
      .filter((ranked) => ranked.relevance > 0)
      .map((ranked) => ({
        tool: ranked.tool,
        index: ranked.index,
        score: ranked.score,
        relevance: 0.3,
        explanation: ranked.explanation,
      }));
    const before = JSON.stringify(weak);
    const lexicalBefore = lexical.map((ranked) => [ranked.index, ranked.score, ranked.relevance]);
    const fused = fuseHybrid(weak, tools, similarities({ 33: 0.26 }), {
      ...DEFAULT_FUSION,
      weight: 5,
      zFloor: 0,
      depth: 1,
    });
    expect(fused[0]!.index).toBe(33);
    expect(fused[1]!.relevance).toBe(fused[0]!.relevance);
    expect(fused[0]!.relevance).toBeLessThan(0.3);
    expect(JSON.stringify(weak)).toBe(before);
    const again = fuseHybrid(lexical, tools, similarities({ 20: 0.9 }));
    expect(lexical.map((ranked) => [ranked.index, ranked.score, ranked.relevance])).toEqual(lexicalBefore);
    const entry = again.find((ranked) => ranked.index === lexical[0]!.index)!;
    expect(entry).not.toBe(lexical[0]);
    expect(entry.explanation).toBe(lexical[0]!.explanation);
  });

  it.each([3, 10, 39, 40, 100])(
    'fuses in the `depth` (%i) most similar tools, most similar first and the lower index first among equals, ties at the cut included',
    (depth) => {
      // Heavy ties (five values), signed zeros among them, and tools without a vector.
      const tied = new Float64Array(tools.length).map((_, i) => [0.3, 0, -0, 0.1, 0.3][(i * 7) % 5]!);
      tied[5] = Number.NaN;
      tied[17] = Number.NaN;
      const fused = fuseHybrid([], tools, tied, { ...DEFAULT_FUSION, depth });
      const expected = [...tied.keys()]
        .filter((i) => !Number.isNaN(tied[i]!))
        .sort((a, b) => tied[b]! - tied[a]! || a - b)
        .slice(0, depth);
      expect(fused.map((ranked) => ranked.index)).toEqual(expected);
    },
  );

  it('maps z-scores to relevance from above what chance gives in a list of that size, up to the 0.6 cap', () => {
    // Chance alone: √(2 ln 500) ≈ 3.53 for 500 tools, √(2 ln 10,000) ≈ 4.29 for 10,000.
    // Relevance starts 0.5 above that and reaches the cap 3 further.
    expect([3.5, 4, 5.53, 6.53, 9].map((z) => Math.round(semanticRelevance(z, 500) * 10) / 10)).toEqual([
      0, 0, 0.3, 0.5, 0.6,
    ]);
    expect(semanticRelevance(4.5, 10_000)).toBe(0);
    expect(semanticRelevance(4.5, 50)).toBeGreaterThan(0);
  });
});
