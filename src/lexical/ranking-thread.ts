// Long rankings off the event loop. Ranking in steps on the loop (stage.ts) pauses between core's
// steps, yet a step is a whole sub-query: 16 sub-queries of 2,000 Japanese characters are ~12 ms pieces
// of CPU, which a busy host stretched to ~85 ms each; and a loop that ranks is a process the host's
// scheduler treats as a CPU hog, so a small search that arrived waited for the process itself to be
// scheduled again (hundreds of ms at load 10–13). In this thread the long ranking is the hog and the
// event loop stays an idle, promptly woken thread: beside a flood of never-seen words a small tenant's
// p95 went 319 → 66 ms (medians of 4 and 5 runs at load 10–16; docs/performance.md#a-thread-for-long-rankings).
//
// Which rankings come here: ranking-cost.ts (by their expected CPU on the loop). One thread (on a 2-core
// host the other core serves requests), whose tasks are taken in turns by project (OneThreadPool): one
// project's ranking waits behind at most one of each other project, and the wait ends at the search's
// deadline (the ranking is then done on the loop, in steps, as before the thread: stage.ts).
// Each project's cache in the thread is an entry of the memory budget at the bytes the thread reports
// after each ranking; when the budget lets it go, the next task tells the thread to drop it.
import { serialize } from 'node:v8';
import { receiveRanking, type PreparedSearch, type RankInput, type RankingBySubQuery } from '@catalog-search/core';
import { OneThreadPool, ThreadWaitEnded } from '../fairness/one-thread-pool.js';
import type { MemoryBudget, ProjectCache } from '../memory/exports.js';
import type { RankingResult, RankingTask } from './ranking-thread-worker.js';
import { startCpu } from './step-cpu.js';

// From the TypeScript sources (tests, bench) the worker is a .ts file that tsx loads.
const fromSource = import.meta.url.endsWith('.ts');
const WORKER = new URL(`./ranking-thread-worker.${fromSource ? 'ts' : 'js'}`, import.meta.url);

/** Tools copied for the thread in one piece of the loop (~1.4 ms for 250 tools of 700 characters). */
const HAND_OVER_TOOLS = 250;
/** How long the thread is kept without work: it loads core's languages again when it starts. */
const IDLE_MS = 10 * 60_000;

/** A lexical ranking and the CPU time it took, here and in the thread, which the project is charged for. */
interface ThreadRanking extends RankingBySubQuery {
  cpuMs: number;
}

export class RankingThread {
  readonly #pool: OneThreadPool<RankingTask, RankingResult>;
  /** Each project's cache in the thread, by the bytes it reported: an entry of the memory budget. */
  readonly #held: ProjectCache<number>;
  /** Projects whose caches the budget let go, to be dropped by the thread's next task. */
  readonly #drop = new Set<string>();
  /** Set while a cache's bytes are replaced (the budget reports the old entry as removed). */
  #replacing = false;

  constructor(
    private readonly options: { projects: number; toolsPerProject: number; memory: MemoryBudget; startNow?: boolean },
  ) {
    this.#pool = new OneThreadPool<RankingTask, RankingResult>({
      worker: WORKER,
      // Started with the service when asked (in production): its first long ranking would wait ~1 s for
      // the thread to load core and its languages. Otherwise on the first long ranking (tests build many apps).
      minThreads: options.startNow ? 1 : 0,
      idleTimeout: IDLE_MS,
    });
    this.#held = options.memory.cache<number>('rank-thread', {
      sizeOf: (bytes) => bytes,
      onRemove: (_bytes, projectId) => {
        if (!this.#replacing) this.#drop.add(projectId);
      },
    });
  }

  /**
   * Ranks `request` in the thread, in `projectId`'s turn. Rejects with ThreadWaitEnded when `signal` (the
   * search's deadline) aborts before the thread took it.
   */
  async rank(
    projectId: string,
    request: PreparedSearch,
    options: { limit: number; maxDescriptionChars: number; bySubQuery: boolean },
    signal?: AbortSignal,
  ): Promise<ThreadRanking> {
    // The copy for the thread is made here, where it can be measured and charged (the thread takes a task
    // when it is free, which may be in another request's turn), and in pieces: 5,000 tools of 700
    // characters were one ~28 ms piece of the loop, several times that on a busy host.
    // Each piece is timed by the clock, the whole by the process's CPU time too (what the pieces cost is
    // at most either): two calls of process.cpuUsage, not two per piece.
    // A search whose deadline has passed, before or during the copy, is ranked on the loop at once rather
    // than paying for a copy the thread would never take.
    if (signal?.aborted) throw new ThreadWaitEnded();
    const cpuBefore = process.cpuUsage();
    let piecesMs = 0;
    let started = performance.now();
    const query = serialize({
      query: request.query,
      ...(request.context === undefined ? {} : { context: request.context }),
    } satisfies Omit<RankInput, 'tools'>);
    const tools: Uint8Array[] = [];
    for (let from = 0; from < request.tools.length; from += HAND_OVER_TOOLS) {
      if (from > 0) {
        piecesMs += performance.now() - started;
        await new Promise((resolve) => setImmediate(resolve));
        if (signal?.aborted) {
          const ended = new ThreadWaitEnded();
          ended.cpuMs = Math.min(piecesMs, cpuMsSince(cpuBefore));
          throw ended;
        }
        started = performance.now();
      }
      tools.push(serialize(request.tools.slice(from, from + HAND_OVER_TOOLS)));
    }
    piecesMs += performance.now() - started;
    const handOverMs = Math.min(piecesMs, cpuMsSince(cpuBefore));
    // Made when the thread takes it: the caches to drop are those the budget let go until then.
    const taken = () => {
      const drop = [...this.#drop];
      this.#drop.clear();
      const task: RankingTask = {
        projectId,
        query,
        tools,
        limit: options.limit,
        maxDescriptionChars: options.maxDescriptionChars,
        bySubQuery: options.bySubQuery,
        toolsPerProject: this.options.toolsPerProject,
        projects: this.options.projects,
        drop,
      };
      // Moved, not copied: a copy of 4.5 MB was another ~40 ms piece of the loop (a CPU profile, load 10).
      // Each piece owns its memory (v8.serialize's buffer is never a pool's slice).
      const transferList = tools
        .filter((piece) => piece.byteOffset === 0 && piece.byteLength === piece.buffer.byteLength)
        .map((piece) => piece.buffer as ArrayBuffer);
      return { task, transferList };
    };
    let result: RankingResult;
    try {
      result = await this.#pool.run(projectId, taken, signal);
    } catch (error) {
      // The hand-over was work done for the project: charged with the loop's ranking that follows.
      if (error instanceof ThreadWaitEnded) error.cpuMs = handOverMs;
      throw error;
    }
    const answer = startCpu();
    this.#account(projectId, result.cacheBytes);
    const { ranked, bySubQuery } = receiveRanking(result.ranking, request.tools);
    return { ranked, bySubQuery, cpuMs: result.cpuMs + handOverMs + answer() };
  }

  #account(projectId: string, bytes: number): void {
    this.#replacing = true;
    try {
      // Larger than the project's share: the thread drops it too.
      if (!this.#held.set(projectId, 'cache', bytes)) this.#drop.add(projectId);
    } finally {
      this.#replacing = false;
    }
  }

  close(): Promise<void> {
    return this.#pool.close();
  }
}

/** The process's CPU time since `before` (process.cpuUsage), in ms. */
function cpuMsSince(before: NodeJS.CpuUsage): number {
  const { user, system } = process.cpuUsage(before);
  return (user + system) / 1000;
}
