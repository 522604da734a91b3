// Long rankings off the event loop. Ranking in steps on the loop (stage.ts) pauses between core's
// steps, yet a step is a whole sub-query: 16 sub-queries of 2,000 Japanese characters are ~12 ms pieces
// of CPU, which a busy host stretched to ~85 ms each; and a loop that ranks is a process the host's
// scheduler treats as a CPU hog, so a small search that arrived waited for the process itself to be
// scheduled again (hundreds of ms at load 10–13). In this thread the long ranking is the hog and the
// event loop stays an idle, promptly woken thread: beside a flood of never-seen words a small tenant's
// p95 went 319 → 66 ms (medians of 4 and 5 runs at load 10–16; docs/performance.md#a-thread-for-long-rankings).
//
// Which rankings come here: ranking-cost.ts (by their expected CPU on the loop). One thread (on a 2-core
// host the other core serves requests), whose tasks are taken in turns by
// project (ProjectFairQueue): one project's ranking waits behind at most one of each other project.
// Each project's cache in the thread is an entry of the memory budget at the bytes the thread reports
// after each ranking; when the budget lets it go, the next task tells the thread to drop it.
import { serialize } from 'node:v8';
import type { PreparedSearch, RankInput, RankingBySubQuery } from '@catalog-search/core';
import { Piscina } from 'piscina';
import { forProject, ProjectFairQueue } from '../fairness/project-fair-queue.js';
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
  readonly #pool: Piscina<RankingTask, RankingResult>;
  /** Each project's cache in the thread, by the bytes it reported: an entry of the memory budget. */
  readonly #held: ProjectCache<number>;
  /** Projects whose caches the budget let go, to be dropped by the thread's next task. */
  readonly #drop = new Set<string>();
  /** Set while a cache's bytes are replaced (the budget reports the old entry as removed). */
  #replacing = false;

  constructor(
    private readonly options: { projects: number; toolsPerProject: number; memory: MemoryBudget; startNow?: boolean },
  ) {
    this.#pool = new Piscina<RankingTask, RankingResult>({
      filename: WORKER.href,
      // Started with the service when asked (in production): its first long ranking would wait ~1 s for
      // the thread to load core and its languages. Otherwise on the first long ranking (tests build many apps).
      minThreads: options.startNow ? 1 : 0,
      maxThreads: 1,
      idleTimeout: IDLE_MS,
      taskQueue: new ProjectFairQueue(),
      // V8 flags such as --expose-gc apply to the whole process and are refused in a worker's execArgv.
      ...(fromSource
        ? { execArgv: [...process.execArgv.filter((flag) => !/^--expose[-_]gc$/.test(flag)), '--import', 'tsx'] }
        : {}),
    });
    this.#held = options.memory.cache<number>('rank-thread', {
      sizeOf: (bytes) => bytes,
      onRemove: (_bytes, projectId) => {
        if (!this.#replacing) this.#drop.add(projectId);
      },
    });
  }

  async rank(
    projectId: string,
    request: PreparedSearch,
    options: { limit: number; maxDescriptionChars: number; bySubQuery: boolean },
  ): Promise<ThreadRanking> {
    // The copy for the thread is made here, where it can be measured and charged (piscina posts a task
    // when the thread is free, which may be in another request's turn), and in pieces: 5,000 tools of 700
    // characters were one ~28 ms piece of the loop, several times that on a busy host.
    // Each piece is timed by the clock, the whole by the process's CPU time too (what the pieces cost is
    // at most either): two calls of process.cpuUsage, not two per piece.
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
        started = performance.now();
      }
      tools.push(serialize(request.tools.slice(from, from + HAND_OVER_TOOLS)));
    }
    piecesMs += performance.now() - started;
    const { user, system } = process.cpuUsage(cpuBefore);
    const handOverMs = Math.min(piecesMs, (user + system) / 1000);
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
    // Moved, not copied, when piscina posts the task: a copy of 4.5 MB was another ~40 ms piece of the loop
    // (a CPU profile, load 10). Each piece owns its memory (v8.serialize's buffer is never a pool's slice).
    const transferList = tools
      .filter((piece) => piece.byteOffset === 0 && piece.byteLength === piece.buffer.byteLength)
      .map((piece) => piece.buffer as ArrayBuffer);
    const result = await this.#pool.run(forProject(task, projectId), { transferList });
    const answer = startCpu();
    this.#account(projectId, result.cacheBytes);
    const ranked = result.ranked.map((tool) => ({ ...tool, tool: request.tools[tool.index]! }));
    return { ranked, bySubQuery: result.bySubQuery, cpuMs: result.cpuMs + handOverMs + answer() };
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
    return this.#pool.destroy();
  }
}
