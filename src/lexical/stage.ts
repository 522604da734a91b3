import {
  rankToolsBySubQueryInSteps,
  type PreparedSearch,
  type RankCache,
  type RankingBySubQuery,
} from '@catalog-search/core';
import { ThreadWaitEnded } from '../fairness/one-thread-pool.js';
import { goesToThread } from './ranking-cost.js';
import type { RankingThread } from './ranking-thread.js';
import { RankingTurns } from './ranking-turns.js';
import { startCpu } from './step-cpu.js';

/**
 * A ranking lets other requests run once it has held the event loop this long since it last did
 * (core pauses it after preparing the list and after each sub-query). By time, not by size: long
 * Japanese sub-queries over one tool cost more CPU than English ones over thousands of tools, and a
 * bound on tools × sub-queries ran them in one piece. A ranking done within
 * this never pauses (pausing would only add latency). Why this value:
 * docs/performance.md#fair-sharing-between-projects
 */
const SLICE_MS = 4;
/**
 * Tools of a list new to the project's cache analysed between two of core's pauses: a big new list was
 * one long piece, and this many make a short step (figures: docs/performance.md#no-search-stalls-another).
 */
const STEP_TOOLS = 64;
/**
 * The longest a long ranking waits for other projects' small searches at one pause: their searches keep
 * coming, and it must still finish. It also waits at most twice the slice it just ran, so that it keeps
 * a third of the thread: waiting the whole bound after every slice made the heavy tenant's own search
 * several times slower beside steady small searches (docs/performance.md#no-search-stalls-another).
 */
const MAX_PAUSE_MS = 50;
const PAUSE_PER_SLICE = 2;

/** A lexical ranking and the CPU time its own steps took, which the project is charged for. */
interface LexicalRanking extends RankingBySubQuery {
  cpuMs: number;
}

/**
 * The lexical stage: the BM25F ranking from packages/core on this project's cache. `limit` is how
 * many the later stages need (all matches for a reranker; the answer's size without one, which
 * lets core skip ordering the rest). `bySubQuery` also gives each sub-query's own order, from the
 * same scores, for the rerank stage's prompt (it never ranks again).
 */
export async function rankLexically(
  request: PreparedSearch,
  options: {
    limit: number;
    cache: RankCache;
    maxDescriptionChars: number;
    bySubQuery: boolean;
    /** The project, and how many searches other projects have being worked on (fair-share.ts). */
    turns?: { projectId: string; othersWorking: () => number };
    /**
     * Where a long ranking goes instead of the event loop (ranking-thread.ts), with the project it ranks
     * for, and the search's deadline: a wait for the thread ends there, and the loop ranks in steps.
     */
    thread?: { pool: RankingThread; projectId: string; deadline?: { readonly signal: AbortSignal } };
  },
): Promise<LexicalRanking> {
  const { bySubQuery, turns, thread, ...rankOptions } = options;
  let handOverMs = 0;
  // By its expected cost on the loop (ranking-cost.ts): an everyday search over a list the loop holds stays here.
  if (thread && goesToThread(request, options.cache)) {
    const { limit, maxDescriptionChars } = rankOptions;
    // A long ranking there too: rankings on the loop never wait for it at their pauses (it holds no turn of the loop).
    if (turns) rankingTurns.start(turns.projectId);
    try {
      const threadOptions = { limit, maxDescriptionChars, bySubQuery };
      return await thread.pool.rank(thread.projectId, request, threadOptions, thread.deadline?.signal);
    } catch (error) {
      if (!(error instanceof ThreadWaitEnded)) throw error;
      handOverMs = error.cpuMs;
    } finally {
      if (turns) rankingTurns.end(turns.projectId);
    }
  }
  const steps = rankToolsBySubQueryInSteps(request, { ...rankOptions, stepTools: STEP_TOOLS }, bySubQuery);
  let cpuMs = handOverMs;
  let sliceStarted = performance.now();
  let long = false;
  try {
    for (;;) {
      const stepCpu = startCpu();
      const step = steps.next();
      cpuMs += stepCpu();
      if (step.done) return { ...step.value, cpuMs };
      const sliceMs = performance.now() - sliceStarted;
      if (sliceMs < SLICE_MS) continue;
      if (turns && !long) rankingTurns.start(turns.projectId);
      long = true;
      await pause(turns, Math.min(MAX_PAUSE_MS, PAUSE_PER_SLICE * sliceMs));
      sliceStarted = performance.now();
    }
  } finally {
    if (turns && long) rankingTurns.end(turns.projectId);
  }
}

const rankingTurns = new RankingTurns();

/**
 * Lets other requests run: what is ready now (setImmediate), then, while other projects have small
 * searches being worked on, the time they need to finish (at most `maxMs`, polled each
 * millisecond). With setImmediate alone a small search waited a slice of the big ranking at each turn
 * of its own (reading a body, checking a token, ranking, answering), which multiplied its latency on a
 * busy host (docs/performance.md#no-search-stalls-another).
 */
async function pause(
  turns: { projectId: string; othersWorking: () => number } | undefined,
  maxMs: number,
): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  if (turns === undefined) return;
  const until = performance.now() + maxMs;
  while (turns.othersWorking() > rankingTurns.otherThan(turns.projectId) && performance.now() < until)
    await new Promise((resolve) => setTimeout(resolve, 1));
}
