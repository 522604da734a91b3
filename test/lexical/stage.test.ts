// The lexical stage (src/lexical/stage.ts): a long ranking lets other work run while it ranks, gives
// small searches of other projects their turn first, and reports the CPU time it took (what its
// project is charged).
import { describe, expect, it } from 'vitest';
import { createRankCache, loadLanguages, prepareSearch, readToolList, type PreparedSearch } from '@catalog-search/core';
import { rankLexically } from '../../src/lexical/stage.js';
import { sampleTools } from '../fixtures/tools.js';

const randomText = (length: number, from: number, to: number) =>
  Array.from({ length }, () => String.fromCodePoint(from + Math.floor(Math.random() * (to - from)))).join('');

/** 16 sub-queries of 2,000 random Japanese characters over the sample list: ~210 ms of CPU quiet. */
async function japaneseSearch(): Promise<PreparedSearch> {
  await loadLanguages();
  const reading = readToolList({ tools: sampleTools });
  if (!reading.ok) throw new Error('the sample list reads');
  const query = Array.from({ length: 16 }, () => randomText(1_000, 0x3041, 0x3097) + randomText(1_000, 0x4e00, 0x9fa0));
  const prepared = prepareSearch({ query }, reading.list);
  if (!prepared.ok) throw new Error('the request prepares');
  return prepared.search;
}

const options = () => ({ limit: 10, cache: createRankCache(), maxDescriptionChars: 2_000, bySubQuery: false });

describe('rankLexically', () => {
  it('lets timers run while it ranks a long request, and reports its CPU time', async () => {
    const search = await japaneseSearch();
    let ticks = 0;
    const timer = setInterval(() => (ticks += 1), 1);
    const started = performance.now();
    const ranking = await rankLexically(search, options());
    const wallMs = performance.now() - started;
    clearInterval(timer);
    // Before, a ranking of 16 units (tools × sub-queries under 10,000) ran in one piece: no tick.
    expect(ticks).toBeGreaterThan(0);
    expect(ranking.cpuMs).toBeGreaterThan(0);
    expect(ranking.cpuMs).toBeLessThanOrEqual(wallMs);
  });

  it("waits at its pauses while another project's small search is being worked on", async () => {
    const search = await japaneseSearch();
    let asked = 0;
    await rankLexically(search, {
      ...options(),
      turns: {
        projectId: 'long',
        othersWorking: () => {
          asked += 1;
          return 1;
        },
      },
    });
    // Asked when it paused and again each millisecond it waited (it finishes all the same: each wait is bounded).
    expect(asked).toBeGreaterThan(1);
  });
});
