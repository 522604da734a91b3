import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { reportWeight, requestTerms } from '../../src/learning/report-events.js';
import { ProjectModel } from '../../src/learning/own/project-model.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 25);
const options = { halfLifeMs: 30 * DAY, priorReports: 3, maxBoost: 1 };
const terms = (text: string) => requestTerms([text]);

function taught(reports: number, at = NOW, toolKey = 'notion:create_page'): ProjectModel {
  const model = new ProjectModel(options);
  for (let i = 0; i < reports; i += 1)
    model.add({ at, toolKey, weight: 1, terms: terms('jot the squad retro takeaways') });
  return model;
}
const boostOf = (model: ProjectModel, text: string, now = NOW) =>
  model.boosts(terms(text), now).get('notion:create_page')?.boost ?? 0;

describe('ProjectModel', () => {
  it('shrinks toward no change until there is evidence: n / (n + priorReports) of the cap for a full match', () => {
    expect(boostOf(taught(1), 'jot the squad retro takeaways')).toBeCloseTo(1 / 4, 6);
    expect(boostOf(taught(3), 'jot the squad retro takeaways')).toBeCloseTo(3 / 6, 6);
    expect(boostOf(taught(30), 'jot the squad retro takeaways')).toBeCloseTo(30 / 33, 6);
  });

  it('decays evidence with the half-life: 6 reports a half-life ago count as 3', () => {
    expect(boostOf(taught(6, NOW - 30 * DAY), 'jot the squad retro takeaways')).toBeCloseTo(
      boostOf(taught(3), 'jot the squad retro takeaways'),
      6,
    );
  });

  it('never boosts past the cap, whatever is reported', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.constantFrom('a:x', 'a:y', 'b:z'),
            fc.constantFrom(1, 0.5, 0.25, -1),
            fc.array(fc.constantFrom('jot', 'squad', 'retro', 'mail', 'send'), { maxLength: 5 }),
          ),
          { maxLength: 300 },
        ),
        fc.array(fc.constantFrom('jot', 'squad', 'retro', 'mail', 'send', 'other'), { minLength: 1, maxLength: 6 }),
        (events, query) => {
          const model = new ProjectModel(options);
          for (const [toolKey, weight, words] of events)
            model.add({ at: NOW, toolKey, weight, terms: [...new Set(words)] });
          for (const { boost } of model.boosts(query, NOW).values()) {
            expect(boost).toBeGreaterThan(0);
            expect(boost).toBeLessThanOrEqual(options.maxBoost);
          }
        },
      ),
      { seed: 7, numRuns: 200 },
    );
  });

  it('a tool the agent always picks first, for unrelated requests, is not raised for a new one (position bias cannot run away)', () => {
    const model = new ProjectModel(options);
    const words = [
      'invoice',
      'weather',
      'flight',
      'recipe',
      'stock',
      'lyrics',
      'translate',
      'calendar',
      'email',
      'map',
      'news',
      'photo',
    ];
    for (let i = 0; i < 200; i += 1) {
      // Each request: three words of twelve; the pick is the first result's, so it counts a quarter.
      const request = [words[i % 12]!, words[(i * 5 + 1) % 12]!, words[(i * 7 + 3) % 12]!];
      model.add({ at: NOW, toolKey: 'top:tool', weight: reportWeight('selected', true), terms: request });
    }
    expect(model.boosts(['vacation', 'flight'], NOW).get('top:tool')?.boost ?? 0).toBeLessThan(0.35);
    // The same number of successes for one kind of request does raise the tool for it.
    const focused = new ProjectModel(options);
    for (let i = 0; i < 50; i += 1)
      focused.add({
        at: NOW,
        toolKey: 'top:tool',
        weight: reportWeight('succeeded', true),
        terms: ['vacation', 'flight'],
      });
    expect(focused.boosts(['vacation', 'flight'], NOW).get('top:tool')!.boost).toBeGreaterThan(0.9);
  });

  it('failures take back successes; a failure of a tool never reported is not kept', () => {
    const model = taught(3);
    for (let i = 0; i < 3; i += 1)
      model.add({ at: NOW, toolKey: 'notion:create_page', weight: -1, terms: terms('jot the squad retro takeaways') });
    expect(boostOf(model, 'jot the squad retro takeaways')).toBe(0);
    model.add({ at: NOW, toolKey: 'never:used', weight: -1, terms: ['jot'] });
    expect(model.size).toBeLessThanOrEqual(1);
    expect(model.boosts(['jot'], NOW).has('never:used')).toBe(false);
  });

  it('weighs outcomes: succeeded 1, selected ½ (¼ when ranked first), failed −1', () => {
    expect([
      reportWeight('succeeded', false),
      reportWeight('selected', false),
      reportWeight('selected', true),
      reportWeight('failed', false),
    ]).toEqual([1, 0.5, 0.25, -1]);
  });

  it('counts a tool once per search: repeats add nothing, a later outcome replaces the earlier one', () => {
    const jot = terms('jot the squad retro takeaways');
    const report = (model: ProjectModel, search: string, weight: number) =>
      model.add({ at: NOW, toolKey: 'notion:create_page', weight, terms: jot, search });
    const repeated = new ProjectModel(options);
    for (let i = 0; i < 10; i += 1) report(repeated, 'one-search', 1);
    expect(boostOf(repeated, 'jot the squad retro takeaways')).toBeCloseTo(1 / 4, 6);
    report(repeated, 'another-search', 1);
    expect(boostOf(repeated, 'jot the squad retro takeaways')).toBeCloseTo(2 / 5, 6);

    const upgraded = new ProjectModel(options);
    report(upgraded, 's', 0.5); // selected, then it succeeded: counts 1, not 1.5
    report(upgraded, 's', 1);
    report(upgraded, 's', 0.5); // a later `selected` does not lower it
    expect(boostOf(upgraded, 'jot the squad retro takeaways')).toBeCloseTo(1 / 4, 6);
    report(upgraded, 's', -1); // then it failed: the search now counts against the tool
    expect(boostOf(upgraded, 'jot the squad retro takeaways')).toBe(0);
  });

  it('a destructive tool gets the cautious boost: four times the reports for the same lift', () => {
    const model = taught(12);
    const learned = model.boosts(terms('jot the squad retro takeaways'), NOW).get('notion:create_page')!;
    expect(learned.cautiousBoost).toBeCloseTo(12 / 24, 6);
    expect(learned.cautiousBoost).toBeCloseTo(boostOf(taught(3), 'jot the squad retro takeaways'), 6);
  });

  it('keeps at most 256 words per tool and reports its bytes for the budget', () => {
    const model = new ProjectModel(options);
    for (let i = 0; i < 100; i += 1)
      model.add({ at: NOW, toolKey: 'a:b', weight: 1, terms: Array.from({ length: 32 }, (_, j) => `w${i}_${j}`) });
    // 320 bytes a word (its map entry, posting and term string, as V8 holds them), 400 the tool.
    expect(model.bytes).toBeLessThan(256 * 320 + 1000);
  });
});
