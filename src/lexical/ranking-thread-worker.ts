// The worker of RankingThread (ranking-thread.ts): core's lexical ranking on a rank cache per project
// kept in this thread (never shared between projects), answering with the ranking as data (positions,
// scores and what explanations are written from: the caller holds the tools and writes the explanations it
// reads) and the bytes of the project's cache, which the service's memory budget counts.
import { readFileSync } from 'node:fs';
import { deserialize } from 'node:v8';
import {
  createRankCache,
  loadLanguages,
  postRanking,
  rankToolsBySubQueryInSteps,
  type PostedRanking,
  type RankCache,
  type RankInput,
} from '@catalog-search/core';

export interface RankingTask {
  projectId: string;
  /** The sub-queries and context (RankInput without tools), serialized on the loop (v8.serialize). */
  query: Uint8Array;
  /** The tools, serialized on the loop in pieces, in order. */
  tools: Uint8Array[];
  limit: number;
  maxDescriptionChars: number;
  bySubQuery: boolean;
  /** Tool analyses a project's cache keeps (RANK_CACHE_TOOLS_PER_PROJECT). */
  toolsPerProject: number;
  /** Projects whose caches this thread keeps at most (RANK_CACHE_PROJECTS). */
  projects: number;
  /** Projects whose caches the memory budget let go since the last task: dropped before ranking. */
  drop: string[];
}

export interface RankingResult {
  /** The ranking, over the task's `tools`. */
  ranking: PostedRanking;
  /** CPU time for the task here: this thread's, and the garbage collector's helpers' for it (charged). */
  cpuMs: number;
  /** The project's cache in this thread after the ranking. */
  cacheBytes: number;
}

// Every language core reads, as on the event loop (app.ts): a Japanese request ranks the same here.
const languages = loadLanguages();
/** Map order is recency: the least recently used project's cache goes first past `projects`. */
const caches = new Map<string, RankCache>();

function cacheOf(task: RankingTask): RankCache {
  let cache = caches.get(task.projectId);
  if (cache !== undefined) caches.delete(task.projectId);
  else cache = createRankCache({ maxEntries: task.toolsPerProject });
  caches.set(task.projectId, cache);
  if (caches.size > task.projects) caches.delete(caches.keys().next().value!);
  return cache;
}

export default async function rank(task: RankingTask): Promise<RankingResult> {
  await languages;
  for (const projectId of task.drop) caches.delete(projectId);
  const cpu = startThreadCpu();
  const cache = cacheOf(task);
  const input: RankInput = {
    ...(deserialize(task.query) as Omit<RankInput, 'tools'>),
    tools: task.tools.flatMap((piece) => deserialize(piece) as RankInput['tools']),
  };
  const steps = rankToolsBySubQueryInSteps(
    input,
    { limit: task.limit, maxDescriptionChars: task.maxDescriptionChars, cache },
    task.bySubQuery,
  );
  let step = steps.next();
  while (!step.done) step = steps.next();
  return { ranking: postRanking(step.value), cpuMs: cpu(), cacheBytes: cache.bytes };
}

/**
 * Starts measuring the task's CPU time; the function returned gives it in ms. This thread's own time
 * (threadCpuMs), plus what the process used outside this thread and the event loop meanwhile, up to as
 * much again: the garbage collector's helper threads collecting this thread's garbage (English
 * 16 × 2,000 characters: ~8 ms here, ~16 ms of the process's). The process's time alone also counts the
 * loop's work beside the ranking, which charged the heavy tenant about twice; the bound keeps another
 * thread's work (the encoder's, the filter rules') from being charged here more than that.
 * Where a thread's time cannot be read: the process's, bounded by wall time.
 */
function startThreadCpu(): () => number {
  const started = performance.now();
  const processBefore = process.cpuUsage();
  const threadBefore = threadCpuMs();
  const loopBefore = loopCpuMs();
  return () => {
    const threadAfter = threadCpuMs();
    const loopAfter = loopCpuMs();
    const { user, system } = process.cpuUsage(processBefore);
    const processMs = (user + system) / 1000;
    if (threadBefore === undefined || threadAfter === undefined)
      return Math.min(performance.now() - started, processMs);
    const own = threadAfter - threadBefore;
    if (loopBefore === undefined || loopAfter === undefined) return own;
    const beside = processMs - own - (loopAfter - loopBefore);
    return own + Math.min(own, Math.max(0, beside));
  };
}

/**
 * This thread's CPU time in ms, or undefined where it cannot be read. The process's CPU time (what
 * stage.ts bounds by wall time) also counts the event loop's thread, which here works beside the ranking:
 * it charged the heavy tenant's rankings about twice what they cost on the loop (5–6 of its searches
 * admitted in the scenario against 9–12). Node 23.9+ gives the thread's own; on Node 20, Linux's
 * /proc/thread-self/schedstat (nanoseconds on the CPU, brought up to date at the scheduler's ticks).
 */
function threadCpuMs(): number | undefined {
  const withThreads = process as { threadCpuUsage?: () => NodeJS.CpuUsage };
  if (withThreads.threadCpuUsage !== undefined) {
    const { user, system } = withThreads.threadCpuUsage();
    return (user + system) / 1000;
  }
  return schedstatMs('/proc/thread-self/schedstat');
}

/** The event loop's thread's CPU time in ms (Linux: the main thread's id is the process's), or undefined. */
const loopCpuMs = (): number | undefined => schedstatMs(`/proc/self/task/${process.pid}/schedstat`);

function schedstatMs(path: string): number | undefined {
  try {
    const nanoseconds = Number(readFileSync(path, 'latin1').split(' ')[0]);
    return Number.isFinite(nanoseconds) ? nanoseconds / 1e6 : undefined;
  } catch {
    return undefined;
  }
}
