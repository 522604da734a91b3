import { describe, expect, it } from 'vitest';
import { associationId, SharedModel, TOOL_USE_TERM } from '../../src/learning/shared-model.js';

// Hashed terms and tool ids have fixed lengths (term-keys.ts): 16 characters each here.
const term = (word: string) => word.padEnd(16, '.');
const TOOL = 'tool-calendar-list'.padEnd(16, '.').slice(0, 16);
const OTHER = 'tool-files-read'.padEnd(16, '.').slice(0, 16);
const K = 5;
const MAX_BOOST = 0.81;

function modelWith(associations: Array<[string, string, number]>): SharedModel {
  const model = new SharedModel({ minProjects: K, halfLifeMs: 30 * 86_400_000, maxBoost: MAX_BOOST });
  const at = Math.floor(Date.now() / 60_000);
  for (const [word, tool, projects] of associations) {
    model.set(associationId(term(word), tool), { pos: projects, neg: 0, posAt: at * projects, negAt: 0 });
  }
  return model;
}

describe('SharedModel.boosts', () => {
  it('a taught term keeps most of its weight among words no k projects taught', () => {
    const model = modelWith([
      ['calendar', TOOL, 8],
      ['file', OTHER, 8],
    ]);
    // One taught term among five that nobody taught (names, dates, values of this request).
    const request = ['calendar', 'acme', 'q3', 'offsite', 'zurich', 'friday'].map(term);
    const boost = model.boosts(request, Date.now()).get(TOOL)!.boost;
    // In this two-tool model an untaught term's idf is 2.6 times the taught one's: at full weight the
    // five held over 90 % of the idf mass and the boost was 0.05; weighed at a fifth they leave the
    // taught term 28 % of it (8 projects: 8/9 of that share of the cap, 0.20).
    expect(boost).toBeGreaterThan(0.2 * MAX_BOOST * (8 / 9));
    expect(boost).toBeLessThanOrEqual(MAX_BOOST);
    expect(model.boosts(request, Date.now()).has(OTHER)).toBe(false);
  });

  it('below k projects nothing is held and nothing raised', () => {
    const model = modelWith([['calendar', TOOL, K - 1]]);
    expect(model.size).toBe(0);
    expect(model.boosts([term('calendar')], Date.now()).size).toBe(0);
  });

  it('stays weaker than the cap and shrinks the least-evidenced association most', () => {
    const model = modelWith([
      ['calendar', TOOL, K],
      ['file', OTHER, 4 * K],
    ]);
    const weak = model.boosts([term('calendar')], Date.now()).get(TOOL)!.boost;
    const strong = model.boosts([term('file')], Date.now()).get(OTHER)!.boost;
    expect(weak).toBeLessThan(strong);
    expect(strong).toBeLessThan(MAX_BOOST);
  });

  it('counts a tool’s use at all (TOOL_USE_TERM) apart from its terms, k-gated and withdrawn alike', () => {
    const model = modelWith([['calendar', TOOL, K]]);
    const at = Math.floor(Date.now() / 60_000);
    const use = (pos: number, neg = 0) =>
      model.set(associationId(TOOL_USE_TERM, TOOL), { pos, neg, posAt: at * pos, negAt: at * neg });
    use(K - 1);
    expect(model.usedBy(TOOL, Date.now())).toBe(0);
    expect(model.knowsUse).toBe(false);
    use(3 * K);
    expect(model.usedBy(TOOL, Date.now())).toBeCloseTo(3 * K, 3);
    expect(model.size).toBe(2);
    // The use is no term: the tool's strongest term, and so its term boost, are unchanged by it.
    expect(model.boosts([term('calendar')], Date.now()).get(TOOL)!.boost).toBeCloseTo(
      modelWith([['calendar', TOOL, K]])
        .boosts([term('calendar')], Date.now())
        .get(TOOL)!.boost,
      9,
    );
    use(3 * K, 3 * K);
    expect(model.usedBy(TOOL, Date.now())).toBe(0);
    expect(model.size).toBe(1);
  });
});
