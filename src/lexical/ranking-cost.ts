// Where a ranking runs: on the event loop, or in the ranking thread (ranking-thread.ts). By what it is
// expected to cost on the loop, not by its size: an everyday search over a 1,000-tool list the loop has
// prepared before takes ~3 ms there, less than handing its list to the thread (~1.4 ms) and the thread
// reading it again; what is expensive goes to the thread (a list new to the project, CJK text, very long
// requests, many sub-queries over many tools). The estimate reads the request once (its characters) and
// looks up one set: cheap beside the ranking. Coefficients: docs/performance.md#a-thread-for-long-rankings.
import type { PreparedSearch, RankCache, ToolInfo } from '@catalog-search/core';
import { WORK_PER_CPU_MS } from '../fairness/fair-share.js';

/** From this many estimated ms on the loop a ranking goes to the thread: above a few of the loop's 4 ms slices. */
export const THREAD_FROM_MS = 10;
/**
 * ms per tool × sub-query of a list already prepared: the work budget's own rate (a warm ranking of 16
 * sub-queries over 5,000 tools, 80,000 units, ~250 ms), the slowest warm rate measured.
 */
const MS_PER_UNIT = 1 / WORK_PER_CPU_MS;
/** ms to read and analyse one tool of a list new to the project's cache (155 µs a tool for 1,000 new ones). */
const MS_PER_NEW_TOOL = 0.2;
/**
 * ms per character of request (sub-queries and context) in scripts from U+2E80 up (CJK, kana, Hangul),
 * which go through segmentation and the dictionaries: 16 × 2,000 random Chinese characters took 9.3 µs a
 * character, Japanese 4.8; other scripts 0.8–1.3 (English, never-seen words, Cyrillic; Hangul 1.5).
 */
const MS_PER_CJK_CHAR = 0.01;
const MS_PER_OTHER_CHAR = 0.0015;
const CJK_FROM = 0x2e80;

/**
 * Lists each project's loop cache has been asked to rank, by identity: a list sent again as it was, or by
 * its `toolSet` id, is the array the service holds (src/tool-sets), so a list seen before is one its
 * project ranks again. Keyed by the project's cache: when the budget lets that cache go, what it saw goes too.
 */
const seenLists = new WeakMap<RankCache, WeakSet<ToolInfo[]>>();

/** The ranking's expected CPU on the loop, in ms. `listSeen`: the loop ranked this list for the project before. */
export function loopCostMs(request: PreparedSearch, listSeen: boolean): number {
  let cjk = 0;
  let other = request.context?.length ?? 0;
  for (const query of request.query) {
    for (let at = 0; at < query.length; at += 1) {
      if (query.charCodeAt(at) >= CJK_FROM) cjk += 1;
      else other += 1;
    }
  }
  const units = request.tools.length * request.query.length;
  return (
    units * MS_PER_UNIT +
    (listSeen ? 0 : request.tools.length * MS_PER_NEW_TOOL) +
    cjk * MS_PER_CJK_CHAR +
    other * MS_PER_OTHER_CHAR
  );
}

/**
 * Whether this ranking goes to the thread, and remembers its list as seen by the project. A list seen
 * for the first time is counted as new (it is analysed wherever it ranks); the second time it is counted
 * as prepared on the loop, where it is analysed once (in steps) and then reused: a list sent once (a
 * flood of new lists) never costs the loop its analysis, a list used again stays on the loop.
 */
export function goesToThread(request: PreparedSearch, cache: RankCache): boolean {
  let seen = seenLists.get(cache);
  if (seen === undefined) {
    seen = new WeakSet();
    seenLists.set(cache, seen);
  }
  const listSeen = seen.has(request.list);
  seen.add(request.list);
  return loopCostMs(request, listSeen) >= THREAD_FROM_MS;
}
