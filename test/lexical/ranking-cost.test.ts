// Where a ranking runs (src/lexical/ranking-cost.ts): by its expected cost on the event loop. An
// everyday search over a list the project uses again stays on the loop; a list sent once, CJK text,
// very long requests and many sub-queries over many tools go to the ranking thread.
import { describe, expect, it } from 'vitest';
import { createRankCache, prepareSearch, readToolList, type PreparedSearch, type ToolInfo } from '@catalog-search/core';
import { goesToThread, loopCostMs, THREAD_FROM_MS } from '../../src/lexical/ranking-cost.js';
import { sampleTools, syntheticTools } from '../fixtures/tools.js';

const randomText = (length: number, from: number, to: number) =>
  Array.from({ length }, () => String.fromCodePoint(from + Math.floor(Math.random() * (to - from)))).join('');

/** A prepared search over `tools` (the same array each time: a list the service holds, sent again). */
function prepared(query: string[], tools: ToolInfo[]): PreparedSearch {
  const reading = readToolList({ tools });
  if (!reading.ok) throw new Error('the list reads');
  const preparation = prepareSearch({ query }, { ...reading.list, tools });
  if (!preparation.ok) throw new Error('the request prepares');
  return preparation.search;
}

const routerList = syntheticTools(1_000);
const everyday = ['create a github issue for the failing build'];

describe('goesToThread', () => {
  it("keeps an everyday search over a 1,000-tool list on the loop once the project's loop has seen the list", () => {
    const cache = createRankCache();
    // First sight: the list is new to the project, and analysing 1,000 tools is expensive anywhere.
    expect(goesToThread(prepared(everyday, routerList), cache)).toBe(true);
    // Sent again (the held array): prepared once on the loop, then reused there.
    expect(goesToThread(prepared(everyday, routerList), cache)).toBe(false);
    expect(goesToThread(prepared(['find the weather', 'post to slack'], routerList), cache)).toBe(false);
  });

  it('sends every list of a flood of new lists to the thread', () => {
    const cache = createRankCache();
    for (let at = 0; at < 5; at += 1) {
      const newList = Array.from({ length: 300 }, (_, tool) => ({
        toolKey: `flood:${tool}_${randomText(8, 0x61, 0x7b)}`,
        toolName: `tool_${tool}`,
        serverName: 'Flood',
        description: randomText(100, 0x61, 0x7b),
      }));
      expect(goesToThread(prepared([randomText(60, 0x61, 0x7b)], newList), cache)).toBe(true);
    }
  });

  it('keeps a small new list on the loop: analysing 20 tools costs less than a hand-over', () => {
    expect(goesToThread(prepared(everyday, sampleTools.slice(0, 20)), createRankCache())).toBe(false);
  });

  it('sends long CJK requests to the thread, and English ones from a larger size', () => {
    const oneTool = sampleTools.slice(0, 1);
    const cache = createRankCache();
    goesToThread(prepared(everyday, oneTool), cache);
    const japanese = Array.from({ length: 2 }, () => randomText(500, 0x3041, 0x3097) + randomText(500, 0x4e00, 0x9fa0));
    expect(goesToThread(prepared(japanese, oneTool), cache)).toBe(true);
    // As many English characters stay on the loop (~1 µs a character against 5–9 for CJK)...
    const english = Array.from({ length: 2 }, () => 'schedule the weekly meeting '.repeat(40).slice(0, 1_000));
    expect(goesToThread(prepared(english, oneTool), cache)).toBe(false);
    // ...and 16 × 2,000 of them go.
    const longEnglish = Array.from({ length: 16 }, () => 'schedule the weekly meeting '.repeat(80).slice(0, 2_000));
    expect(goesToThread(prepared(longEnglish, oneTool), cache)).toBe(true);
  });

  it('sends many sub-queries over many tools to the thread even when the list is held', () => {
    const cache = createRankCache();
    const list = syntheticTools(5_000);
    const sixteen = Array.from({ length: 16 }, (_, at) => `send the report number ${at}`);
    goesToThread(prepared(everyday, list), cache);
    expect(goesToThread(prepared(sixteen, list), cache)).toBe(true);
  });

  it("counts a list as new for another project, and again once the project's cache was let go", () => {
    const projectA = createRankCache();
    goesToThread(prepared(everyday, routerList), projectA);
    expect(goesToThread(prepared(everyday, routerList), projectA)).toBe(false);
    // Another project's cache, or the one made for this project after the budget let its cache go.
    expect(goesToThread(prepared(everyday, routerList), createRankCache())).toBe(true);
  });
});

describe('loopCostMs', () => {
  it('grows with tools × sub-queries, new tools and characters, CJK ones costing more', () => {
    const base = loopCostMs(prepared(everyday, routerList), true);
    expect(base).toBeLessThan(THREAD_FROM_MS);
    expect(loopCostMs(prepared([...everyday, ...everyday], routerList), true)).toBeGreaterThan(base);
    expect(loopCostMs(prepared(everyday, routerList), false)).toBeGreaterThan(base);
    const oneTool = sampleTools.slice(0, 1);
    expect(loopCostMs(prepared([randomText(1_000, 0x4e00, 0x9fa0)], oneTool), true)).toBeGreaterThan(
      5 * loopCostMs(prepared([randomText(1_000, 0x61, 0x7b)], oneTool), true),
    );
  });
});
