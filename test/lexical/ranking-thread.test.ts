// The ranking thread (src/lexical/ranking-thread.ts): rankings sent there answer as the event loop's
// ranking does and are charged the CPU they took; each project's cache there counts in the memory budget.
// Which rankings go there: ranking-cost.test.ts.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createRankCache, loadLanguages, prepareSearch, readToolList, type PreparedSearch } from '@catalog-search/core';
import { Piscina } from 'piscina';
import { OneThreadPool, ThreadWaitEnded } from '../../src/fairness/one-thread-pool.js';
import { RankingThread } from '../../src/lexical/ranking-thread.js';
import { rankLexically } from '../../src/lexical/stage.js';
import { MemoryBudget } from '../../src/memory/exports.js';
import { startDeadline } from '../../src/waits/deadline.js';
import { sampleTools, syntheticTools } from '../fixtures/tools.js';

const randomText = (length: number, from: number, to: number) =>
  Array.from({ length }, () => String.fromCodePoint(from + Math.floor(Math.random() * (to - from)))).join('');

async function prepared(query: string[], tools = sampleTools): Promise<PreparedSearch> {
  await loadLanguages();
  const reading = readToolList({ tools });
  if (!reading.ok) throw new Error('the list reads');
  const preparation = prepareSearch({ query }, reading.list);
  if (!preparation.ok) throw new Error('the request prepares');
  return preparation.search;
}

/** 4 sub-queries of 1,000 random Japanese characters, some of them words of the dictionary. */
const japanese = () =>
  prepared(
    Array.from(
      { length: 4 },
      () => `カレンダーに会議を追加 ${randomText(500, 0x3041, 0x3097)}${randomText(500, 0x4e00, 0x9fa0)}`,
    ),
  );
/** 2 sub-queries over 600 tools: 1,200 units. */
const bigList = () => prepared(['create an issue in the tracker', 'send the report by email'], syntheticTools(600));

const budget = (maxBytes = 64 * 1024 * 1024, projectShare = 0.5) => new MemoryBudget({ maxBytes, projectShare });
const options = { limit: 20, maxDescriptionChars: 2_000, bySubQuery: true };
const threads: RankingThread[] = [];
function rankingThread(memory = budget()): RankingThread {
  const thread = new RankingThread({ projects: 8, toolsPerProject: 6_000, memory });
  threads.push(thread);
  return thread;
}
afterAll(() => Promise.all(threads.map((thread) => thread.close())));

const comparable = (ranked: { tool: { toolKey: string }; score: number; relevance: number; explanation: string }[]) =>
  ranked.map(({ tool, score, relevance, explanation }) => ({ toolKey: tool.toolKey, score, relevance, explanation }));

describe('RankingThread', () => {
  it("ranks as the event loop does, and answers with the request's own tool objects", async () => {
    const thread = rankingThread();
    const sent = vi.spyOn(thread, 'rank');
    for (const search of [await bigList(), await japanese()]) {
      sent.mockClear();
      const onLoop = await rankLexically(search, { ...options, cache: createRankCache() });
      const cpuBefore = process.cpuUsage();
      const inThread = await rankLexically(search, {
        ...options,
        cache: createRankCache(),
        thread: { pool: thread, projectId: 'p' },
      });
      expect(sent).toHaveBeenCalledOnce();
      expect(comparable(inThread.ranked)).toEqual(comparable(onLoop.ranked));
      expect(inThread.bySubQuery).toEqual(onLoop.bySubQuery);
      expect(inThread.ranked.every(({ tool, index }) => tool === search.tools[index])).toBe(true);
      // Its CPU time is what the project is charged: the thread's, the loop's hand-over and the garbage
      // collector's share, within what the process used over the call (a scheduler tick of slack: Linux
      // brings a running thread's figure up to date at its ticks).
      const { user, system } = process.cpuUsage(cpuBefore);
      expect(inThread.cpuMs).toBeGreaterThan(0);
      expect(inThread.cpuMs).toBeLessThanOrEqual((user + system) / 1000 + 10);
    }
  }, 60_000);

  it('leaves an everyday search over a list the loop has seen to the loop', async () => {
    const thread = rankingThread();
    const sent = vi.spyOn(thread, 'rank');
    const cache = createRankCache();
    const search = await prepared(['create a calendar event', 'post to slack'], syntheticTools(1_000));
    await rankLexically(search, { ...options, cache, thread: { pool: thread, projectId: 'p' } });
    expect(sent).toHaveBeenCalledTimes(1); // a list new to the project: analysed in the thread
    const again = await rankLexically(search, { ...options, cache, thread: { pool: thread, projectId: 'p' } });
    expect(sent).toHaveBeenCalledTimes(1);
    expect(again.ranked.length).toBeGreaterThan(0);
    expect(again.cpuMs).toBeGreaterThan(0);
  }, 60_000);

  it('copies a long list for the thread in pieces, letting other work run between them', async () => {
    const thread = rankingThread();
    const search = await prepared(['create an issue'], syntheticTools(2_000));
    const original = Piscina.prototype.run;
    let otherWorkRan = false;
    let otherWorkRanBeforeTheTask: boolean | undefined;
    const run = vi.spyOn(Piscina.prototype, 'run').mockImplementation(function (this: Piscina, ...args) {
      otherWorkRanBeforeTheTask = otherWorkRan;
      return original.apply(this, args);
    });
    try {
      setImmediate(() => (otherWorkRan = true));
      const ranked = await thread.rank('p', search, options);
      expect(ranked.ranked.length).toBeGreaterThan(0);
    } finally {
      run.mockRestore();
    }
    expect(otherWorkRanBeforeTheTask).toBe(true);
  }, 60_000);

  it("ranks on the loop when the search's deadline passes while it waits for the thread, collections forced", async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as (options: { type: 'major'; execution: 'sync' }) => void;
    const thread = rankingThread();
    const sent = vi.spyOn(thread, 'rank');
    // Another project's long ranking holds the thread (its first task also starts it).
    const other = thread.rank('other', await japanese(), options);
    const search = await bigList();
    const onLoop = await rankLexically(search, { ...options, cache: createRankCache() });
    const collecting = setInterval(() => gc({ type: 'major', execution: 'sync' }), 5);
    const deadline = startDeadline(30);
    try {
      const ranked = await rankLexically(search, {
        ...options,
        cache: createRankCache(),
        thread: { pool: thread, projectId: 'p', deadline },
      });
      expect(comparable(ranked.ranked)).toEqual(comparable(onLoop.ranked));
      expect(ranked.cpuMs).toBeGreaterThan(0);
    } finally {
      clearInterval(collecting);
      deadline.dispose();
    }
    // It was sent to the thread, whose wait ended; the other project's ranking went on there.
    expect(sent).toHaveBeenCalledTimes(2);
    await expect(sent.mock.results[1]!.value).rejects.toBeInstanceOf(ThreadWaitEnded);
    expect((await other).ranked.length).toBeGreaterThan(0);
  }, 60_000);

  it("copies nothing for the thread once the search's deadline has passed, before or during the copy", async () => {
    const thread = rankingThread();
    const run = vi.spyOn(OneThreadPool.prototype, 'run');
    try {
      // Passed before: nothing copied, nothing charged.
      const before = await thread.rank('p', await bigList(), options, AbortSignal.abort()).catch((error) => error);
      expect(before).toBeInstanceOf(ThreadWaitEnded);
      expect((before as ThreadWaitEnded).cpuMs).toBe(0);
      // Passed after the first of the 600 tools' three pieces: the copy stops there.
      const search = await bigList();
      const deadline = new AbortController();
      const ranking = thread.rank('p', search, options, deadline.signal);
      deadline.abort();
      const during = await ranking.catch((error) => error);
      expect(during).toBeInstanceOf(ThreadWaitEnded);
      // The piece already copied is charged.
      expect((during as ThreadWaitEnded).cpuMs).toBeGreaterThan(0);
      // The thread was never asked.
      expect(run).not.toHaveBeenCalled();
    } finally {
      run.mockRestore();
    }
  });

  it("counts each project's cache in the thread as an entry of the memory budget", async () => {
    const memory = budget();
    const thread = rankingThread(memory);
    await thread.rank('a', await bigList(), options);
    const afterA = memory.usage().byCache['rank-thread']!;
    expect(afterA).toBeGreaterThan(600 * 100);
    await thread.rank('b', await bigList(), options);
    expect(memory.usage().byCache['rank-thread']).toBeGreaterThan(afterA);
  }, 60_000);

  it("holds no project's cache larger than its share of the budget", async () => {
    // A share of 100 KB: the 600 analysed tools are more, so the thread is told to drop them.
    const memory = budget(1024 * 1024, 0.1);
    const thread = rankingThread(memory);
    await thread.rank('a', await bigList(), options);
    await thread.rank('a', await bigList(), options);
    expect(memory.usage().byCache['rank-thread']).toBe(0);
  }, 60_000);
});
