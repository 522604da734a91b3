// The embedded encoder behind the Embedder interface, off the main thread: a piscina pool whose
// worker (local-encoder-worker.ts) loads the model once and keeps it (no idle timeout). One thread by
// default: on a 2-core host the other core serves requests. Tool texts go one per task, so a search's
// query vector waits behind at most one tool text (~20–30 ms) while a list embeds in the background.
// Batches of 4 embed a list about 10 % faster but made such searches wait behind four: in the Docker
// image, new-query searches during another project's list embedding took 201–228 ms p95 with batches
// of 4 and 54–73 ms one per task (docs/performance.md).
//
// Every text is a task of its project's, and the worker takes them in turns between projects
// (ProjectFairQueue), each project with a share of the queue: with one first-in-first-out queue, a
// project sending 16-sub-query searches four at a time left another project 5 hybrid answers in 100
// (the rest `busy` or `timeout`, p95 0.7–2.2 s); with turns, 100 in 100 (p95 193–222 ms).
//
// A deadline does not abort a task the worker has started: piscina would terminate the worker, and
// the next task would pay the model's load again (~0.5 s). The caller stops waiting instead.
import { Piscina } from 'piscina';
import { EmbeddingError, untilAborted, type EmbedCall, type Embedder } from './embedder.js';
import { LOCAL_DIMENSIONS, LOCAL_MODEL, type EncoderBackend } from './local-encoder.js';
import { forProject, ProjectFairQueue } from './project-fair-queue.js';

// From the TypeScript sources (tests, eval, bench) the worker is a .ts file that tsx loads.
const fromSource = import.meta.url.endsWith('.ts');
const WORKER = new URL(`./local-encoder-worker.${fromSource ? 'ts' : 'js'}`, import.meta.url);

interface EmbeddedSourceOptions {
  threads?: number;
  /**
   * Texts waiting for the worker at most (default 128, a few seconds of work); more are refused
   * (`busy`) rather than queued without bound. A search that stops waiting does not cancel its tasks
   * (see above), so this also bounds the work abandoned requests can pile up.
   */
  maxQueue?: number;
  /**
   * Texts of one project waiting at most (default 32: two requests of 16 sub-queries), so that one
   * project's flood is refused while other projects' queries still get in.
   */
  maxQueuePerProject?: number;
}

interface EncoderWarmUp {
  loadMs: number;
  backend: EncoderBackend;
}

export function createEmbeddedSource(
  options: EmbeddedSourceOptions = {},
): Embedder & { warmUp(): Promise<EncoderWarmUp> } {
  const maxQueue = options.maxQueue ?? 128;
  const maxQueuePerProject = Math.min(options.maxQueuePerProject ?? 32, maxQueue);
  const queue = new ProjectFairQueue();
  const pool = new Piscina<string[], unknown>({
    filename: WORKER.href,
    minThreads: options.threads ?? 1,
    maxThreads: options.threads ?? 1,
    idleTimeout: Number.POSITIVE_INFINITY,
    taskQueue: queue,
    // A task piscina takes from the queue while the worker is busy goes back to the front (unshift), not
    // to the back, where it would lose its project's turn.
    stricterFIFO: true,
    maxQueue,
    // V8 flags such as --expose-gc (the deadline tests') apply to the whole process and are refused in a worker's execArgv.
    ...(fromSource
      ? { execArgv: [...process.execArgv.filter((flag) => !/^--expose[-_]gc$/.test(flag)), '--import', 'tsx'] }
      : {}),
  });
  const embed = async (
    texts: readonly string[],
    { signal, projectId = '' }: EmbedCall = {},
  ): Promise<Float32Array[]> => {
    if (texts.length === 0) return [];
    // Refused whole, before any text is queued: a call half queued would leave work nobody waits for.
    if (queue.size + texts.length > maxQueue || queue.waitingOf(projectId) + texts.length > maxQueuePerProject) {
      throw new EmbeddingError('busy', 'the embedded encoder has too much work queued');
    }
    let vectors: Float32Array[] | undefined;
    try {
      // One text per task: the queue takes turns between projects task by task.
      const work = Promise.all(texts.map((text) => pool.run(forProject([text], projectId)) as Promise<Float32Array>));
      vectors = signal ? await untilAborted(work, signal) : await work;
    } catch (error) {
      if (error instanceof Error && /queue is at limit/i.test(error.message)) {
        throw new EmbeddingError('busy', 'the embedded encoder has too much work queued', { cause: error });
      }
      throw new EmbeddingError('upstream_error', `the embedded encoder failed: ${String(error)}`, { cause: error });
    }
    if (vectors === undefined)
      throw new EmbeddingError('timeout', 'the search stopped waiting for the embedded encoder');
    return vectors;
  };
  return {
    source: 'embedded',
    model: LOCAL_MODEL,
    batchSize: 1,
    dimensions: LOCAL_DIMENSIONS,
    embed,
    /**
     * Loads the model in the worker now (instead of on the first search) and embeds once (the first
     * call pays ~100 ms of one-time setup); resolves with the ms it took and what runs the model.
     */
    async warmUp() {
      const started = performance.now();
      await embed(['warm up']);
      const loadMs = performance.now() - started;
      return { loadMs, backend: (await pool.run([], { name: 'backend' })) as EncoderBackend };
    },
    close: () => pool.destroy(),
  };
}
