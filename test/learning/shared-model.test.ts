import { describe, expect, it } from 'vitest';
import { TermKeys } from '../../src/learning/term-keys.js';
import { associationId, SharedModel, TOOL_USE_TERM } from '../../src/learning/shared/shared-model.js';

// Hashed terms and tool ids have fixed lengths (term-keys.ts): 16 characters each here.
const term = (word: string) => word.padEnd(16, '.');
const TOOL = 'tool-calendar-list'.padEnd(16, '.').slice(0, 16);
const OTHER = 'tool-files-read'.padEnd(16, '.').slice(0, 16);
const K = 5;
/** Each association's threshold lies in K + 1 … K + SPREAD (LEARNING_SHARED_THRESHOLD_SPREAD). */
const SPREAD = 3;
const MAX_BOOST = 0.81;

/** Every threshold at k + 1 unless `draw` says otherwise (the service draws it with the deployment's key). */
function modelWith(associations: Array<[string, string, number]>, draw = (_id: string) => 0): SharedModel {
  const model = new SharedModel({
    minProjects: K,
    thresholdSpread: SPREAD,
    draw,
    halfLifeMs: 30 * 86_400_000,
    maxBoost: MAX_BOOST,
  });
  const at = Math.floor(Date.now() / 60_000);
  for (const [word, tool, projects] of associations) {
    model.set(associationId(term(word), tool), { pos: projects, neg: 0, posAt: at * projects, negAt: 0 });
  }
  return model;
}

describe('SharedModel.boosts', () => {
  it('a request word no tool of the list has (a name, a value) takes nothing from a taught term', () => {
    const model = modelWith([
      ['calendar', TOOL, 8],
      ['file', OTHER, 8],
    ]);
    // One taught term among five that nobody taught and that no tool of the list has.
    const request = ['calendar', 'acme', 'q3', 'offsite', 'zurich', 'friday'].map(term);
    const asked: string[] = [];
    const boosts = model.boosts(request, Date.now(), (hash) => (asked.push(hash), false));
    // The whole of the taught share, shrunk as for k + SPREAD = 8 projects whatever the count:
    // 8/9 of the cap (less the decay since this minute began).
    expect(boosts.get(TOOL)!.boost).toBeCloseTo(MAX_BOOST * (8 / 9), 4);
    expect(boosts.has(OTHER)).toBe(false);
    expect(asked.sort()).toEqual(['acme', 'q3', 'offsite', 'zurich', 'friday'].map(term).sort());
  });

  it('an untaught word of the list counts against a taught term, at a share of its idf', () => {
    const model = modelWith([
      ['calendar', TOOL, 8],
      ['file', OTHER, 8],
    ]);
    // "delete" is a word of the list's tools that no project taught: the request asks for more than
    // the calendar term says, so the calendar tool gets less than the whole share.
    const request = ['calendar', 'delete'].map(term);
    const ofList = new Set([term('delete')]);
    const boost = model.boosts(request, Date.now(), (hash) => ofList.has(hash)).get(TOOL)!.boost;
    const alone = model.boosts([term('calendar')], Date.now(), () => true).get(TOOL)!.boost;
    expect(boost).toBeLessThan(0.8 * alone);
    // In this two-tool model an untaught term's idf is 2.6 times the taught one's: weighed at 0.3 it
    // leaves the taught term 1 / (1 + 0.3 × 2.6), 56 %, of the mass; at full weight it left 28 %.
    expect(boost).toBeGreaterThan(0.45 * alone);
  });

  it('asks nothing about the list when no association matches the request', () => {
    const model = modelWith([['calendar', TOOL, 8]]);
    let asked = 0;
    expect(model.boosts([term('weather'), term('today')], Date.now(), () => (asked++, true)).size).toBe(0);
    expect(asked).toBe(0);
  });

  it('at k projects or fewer nothing is held and nothing raised, whatever the draw', () => {
    const model = modelWith([['calendar', TOOL, K]]);
    expect(model.size).toBe(0);
    expect(model.boosts([term('calendar')], Date.now(), () => true).size).toBe(0);
  });

  it('holds an association from its keyed threshold on, between k + 1 and k + SPREAD', () => {
    for (let step = 0; step < SPREAD; step += 1) {
      const draw = () => (step + 0.5) / SPREAD;
      expect(modelWith([['calendar', TOOL, K + step]], draw).size).toBe(0);
      expect(modelWith([['calendar', TOOL, K + step + 1]], draw).size).toBe(1);
    }
    // The deployment's key spreads the thresholds over the whole range, one association to the next.
    const keys = new TermKeys(Buffer.alloc(32, 7));
    const thresholds = new Set<number>();
    for (let i = 0; i < 60; i += 1) {
      const id = associationId(term(`word${i}`), TOOL);
      const draw = (at: string) => keys.draw('threshold', at);
      let projects = K + 1;
      while (modelWith([[`word${i}`, TOOL, projects]], draw).size === 0) projects += 1;
      thresholds.add(projects);
      expect(keys.draw('threshold', id)).toBe(draw(id));
    }
    expect([...thresholds].sort()).toEqual(Array.from({ length: SPREAD }, (_, i) => K + 1 + i));
  });

  it('weighs a held association the same however many projects said it (the relevance counts nobody)', () => {
    const now = Date.now();
    const boostAt = (projects: number) =>
      modelWith([
        ['calendar', TOOL, projects],
        ['file', OTHER, 4 * K],
      ])
        .boosts([term('calendar')], now, () => true)
        .get(TOOL)!.boost;
    expect(boostAt(K + SPREAD)).toBe(boostAt(K + 1));
    expect(boostAt(4 * K)).toBe(boostAt(K + 1));
    expect(boostAt(K + 1)).toBeLessThan(MAX_BOOST);
    // The attack on the first version read 5 to 8 projects off the relevance at k = 4 (0.675 → 0.72):
    // at k = 4 with no spread, 5 and 8 projects give one boost.
    const atFour = (projects: number) => {
      const model = new SharedModel({
        minProjects: 4,
        thresholdSpread: 1,
        draw: () => 0,
        halfLifeMs: 30 * 86_400_000,
        maxBoost: MAX_BOOST,
      });
      const at = Math.floor(now / 60_000);
      model.set(associationId(term('calendar'), TOOL), { pos: projects, neg: 0, posAt: at * projects, negAt: 0 });
      return model.boosts([term('calendar')], now, () => true).get(TOOL)!.boost;
    };
    expect(atFour(5)).toBe(atFour(8));
  });

  it('counts a tool’s use at all (TOOL_USE_TERM) apart from its terms, k-gated and withdrawn alike', () => {
    const model = modelWith([['calendar', TOOL, K + 1]]);
    // One instant for every read: the decay between two reads must not decide the comparisons below.
    const now = Date.now();
    const at = Math.floor(now / 60_000);
    const use = (pos: number, neg = 0) =>
      model.set(associationId(TOOL_USE_TERM, TOOL), { pos, neg, posAt: at * pos, negAt: at * neg });
    use(K - 1);
    expect(model.usedBy(TOOL, now)).toBe(0);
    expect(model.knowsUse).toBe(false);
    use(3 * K);
    expect(model.usedBy(TOOL, now)).toBeCloseTo(3 * K, 3);
    expect(model.size).toBe(2);
    // The use is no term: the tool's strongest term, and so its term boost, are unchanged by it.
    expect(model.boosts([term('calendar')], now, () => true).get(TOOL)!.boost).toBeCloseTo(
      modelWith([['calendar', TOOL, K + 1]])
        .boosts([term('calendar')], now, () => true)
        .get(TOOL)!.boost,
      // The two models' reports may straddle a minute (modelWith's `at`): 2e-6 apart at most. Had the use
      // counted as a term (15 projects on top of 5), the boost would differ in the second decimal.
      5,
    );
    use(3 * K, 3 * K);
    expect(model.usedBy(TOOL, now)).toBe(0);
    expect(model.size).toBe(1);
  });
});
