// The embedded encoder behind the Embedder interface, off the main thread, in two lanes of piscina
// worker threads (local-encoder-worker.ts loads the model once per thread and keeps it):
//
// - The query lane embeds searches' requests: EMBEDDINGS_THREADS threads (one by default) at the
//   process's priority, a text per task. It never holds a tool text, so a request waits for no list
//   (with one thread for both, a request waited behind the tool text in flight while any list embedded).
// - The background lane embeds tool lists: one thread at nice 10 (thread-priority.ts), tasks of
//   BACKGROUND_BATCH texts. It uses the CPU searches leave idle, so a new list does not slow the
//   searches of every project on the replica, and batches share tfjs's fixed cost per call.
// Each thread holds its own copy of the model.
//
// Every request text is a task of its project's, and the query lane takes them in turns between projects
// (ProjectFairQueue), each project with a share of the queue, so one project's many sub-queries cannot
// crowd another out. The background lane needs no turns of its own: the background embedder sends one
// batch at a time, projects in turn.
//
// A deadline does not abort a task the worker has started: piscina would terminate the worker, and
// the next task would pay the model's load again. The caller stops waiting instead.
// The figures behind each choice: docs/performance.md#the-semantic-stages-figures.
import { Piscina } from 'piscina';
import { boundedWait } from '@catalog-search/core';
import { EmbeddingError, type EmbedCall, type Embedder } from './embedder.js';
import { LOCAL_DIMENSIONS, LOCAL_MODEL, LOCAL_SCRIPTS, type EncoderBackend } from './local-encoder.js';
import type { EncoderThreadData } from './local-encoder-worker.js';
import { forProject, ProjectFairQueue } from '../fairness/project-fair-queue.js';

// From the TypeScript sources (tests, eval, bench) the worker is a .ts file that tsx loads.
const fromSource = import.meta.url.endsWith('.ts');
const WORKER = new URL(`./local-encoder-worker.${fromSource ? 'ts' : 'js'}`, import.meta.url);

/** Tool texts per background task: as cheap per text as 4, with half the calls (docs/performance.md#the-semantic-stages-figures). */
const BACKGROUND_BATCH = 8;
/** Background tasks waiting at most (the background embedder sends one at a time; this bounds a misuse). */
const BACKGROUND_QUEUE = 4;

interface EmbeddedSourceOptions {
  /** Threads of the query lane (EMBEDDINGS_THREADS, default 1). The background lane has one. */
  threads?: number;
  /**
   * The background lane's nice value (EMBEDDINGS_BACKGROUND_NICE, default 10): little of a core it shares
   * with a busy thread at nice 0, all of an idle one (docs/performance.md, "Two lanes").
   */
  backgroundNice?: number;
  /**
   * Request texts waiting for the query lane at most (default 128, a few seconds of work); more are
   * refused (`busy`) rather than queued without bound. A search that stops waiting does not cancel its
   * tasks (see above), so this also bounds the work abandoned requests can pile up.
   */
  maxQueue?: number;
  /**
   * Request texts of one project waiting at most (default 32: two requests of 16 sub-queries), so that
   * one project's flood is refused while other projects' queries still get in.
   */
  maxQueuePerProject?: number;
}

interface EncoderWarmUp {
  /** Ms until the query lane had loaded the model and embedded once. */
  loadMs: number;
  backend: EncoderBackend;
  /** The background lane thread's nice value, or undefined where it could not be set (not Linux). */
  backgroundNice: number | undefined;
}

/** A pool of encoder threads with the given thread data. */
function encoderPool(
  threads: number,
  data: EncoderThreadData,
  extra: Partial<ConstructorParameters<typeof Piscina>[0]>,
) {
  return new Piscina<string[], unknown>({
    filename: WORKER.href,
    minThreads: threads,
    maxThreads: threads,
    idleTimeout: Number.POSITIVE_INFINITY,
    workerData: data,
    // V8 flags such as --expose-gc (the deadline tests') apply to the whole process and are refused in a worker's execArgv.
    ...(fromSource
      ? { execArgv: [...process.execArgv.filter((flag) => !/^--expose[-_]gc$/.test(flag)), '--import', 'tsx'] }
      : {}),
    ...extra,
  });
}

/** One vector per text from the packed buffer a worker sends back. */
function unpack(packed: Float32Array, count: number): Float32Array[] {
  return Array.from({ length: count }, (_, i) => packed.subarray(i * LOCAL_DIMENSIONS, (i + 1) * LOCAL_DIMENSIONS));
}

export function createEmbeddedSource(
  options: EmbeddedSourceOptions = {},
): Embedder & { warmUp(): Promise<EncoderWarmUp>; tasksDone(): { query: number; background: number } } {
  const maxQueue = options.maxQueue ?? 128;
  const maxQueuePerProject = Math.min(options.maxQueuePerProject ?? 32, maxQueue);
  const queue = new ProjectFairQueue();
  const queries = encoderPool(
    options.threads ?? 1,
    {},
    {
      taskQueue: queue,
      // A task piscina takes from the queue while the worker is busy goes back to the front (unshift), not
      // to the back, where it would lose its project's turn.
      stricterFIFO: true,
      maxQueue,
    },
  );
  const background = encoderPool(1, { nice: options.backgroundNice ?? 10 }, { maxQueue: BACKGROUND_QUEUE });

  const failed = (error: unknown): EmbeddingError =>
    error instanceof Error && /queue is at limit/i.test(error.message)
      ? new EmbeddingError('busy', 'the embedded encoder has too much work queued', { cause: error })
      : new EmbeddingError('upstream_error', `the embedded encoder failed: ${String(error)}`, { cause: error });

  /** The query lane: one text per task, projects in turn. */
  const embedRequest = (texts: readonly string[], projectId: string): Promise<Float32Array[]> => {
    // Refused whole, before any text is queued: a call half queued would leave work nobody waits for.
    if (queue.size + texts.length > maxQueue || queue.waitingOf(projectId) + texts.length > maxQueuePerProject) {
      throw new EmbeddingError('busy', 'the embedded encoder has too much work queued');
    }
    return Promise.all(texts.map((text) => queries.run(forProject([text], projectId)) as Promise<Float32Array>));
  };
  /** The background lane: the texts as one task. */
  const embedTools = async (texts: readonly string[]): Promise<Float32Array[]> =>
    unpack((await background.run([...texts])) as Float32Array, texts.length);

  const embed = async (
    texts: readonly string[],
    { signal, projectId = '', background: inBackground = false }: EmbedCall = {},
  ): Promise<Float32Array[]> => {
    if (texts.length === 0) return [];
    let vectors: Float32Array[] | undefined;
    try {
      const work = inBackground ? embedTools(texts) : embedRequest(texts, projectId);
      vectors = signal ? await boundedWait(work, { signal }) : await work;
    } catch (error) {
      throw error instanceof EmbeddingError ? error : failed(error);
    }
    if (vectors === undefined)
      throw new EmbeddingError('timeout', 'the search stopped waiting for the embedded encoder');
    return vectors;
  };
  return {
    source: 'embedded',
    model: LOCAL_MODEL,
    scripts: LOCAL_SCRIPTS,
    batchSize: BACKGROUND_BATCH,
    dimensions: LOCAL_DIMENSIONS,
    embed,
    /**
     * Loads the model in the query lane now (instead of on the first search) and embeds once (the first
     * call pays a one-time setup); resolves with the ms it took and what runs the model. The background
     * lane loads its own at the same time, at its lower priority, and is not waited for: with both waited
     * for, a start under forced garbage collection on a busy machine outlasted Fastify's time for the
     * ready hook (the deadline-GC test).
     */
    async warmUp() {
      const started = performance.now();
      await embed(['warm up']);
      const loadMs = performance.now() - started;
      const [queryLane, backgroundNice] = (await Promise.all([
        queries.run([], { name: 'backend' }),
        background.run([], { name: 'nice' }),
      ])) as [EncoderBackend, number | null];
      return { loadMs, backend: queryLane, backgroundNice: backgroundNice ?? undefined };
    },
    /** Tasks each lane has finished (a request text is one task, a background batch one). */
    tasksDone: () => ({ query: queries.completed, background: background.completed }),
    close: async () => {
      await Promise.all([queries.destroy(), background.destroy()]);
    },
  };
}
