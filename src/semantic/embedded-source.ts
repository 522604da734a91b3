// The embedded encoder behind the Embedder interface, off the main thread: a piscina pool whose
// worker (local-encoder-worker.ts) loads the model once and keeps it (no idle timeout). One thread by
// default: on a 2-core host the other core serves requests. Tool texts go one per task, so a search's
// query vector waits behind at most one tool text (~20–30 ms) while a list embeds in the background.
// Batches of 4 embed a list about 10 % faster but made such searches wait behind four: in the Docker
// image, new-query searches during another project's list embedding took 201–228 ms p95 with batches
// of 4 and 54–73 ms one per task (docs/performance.md).
//
// A deadline does not abort a task the worker has started: piscina would terminate the worker, and
// the next task would pay the model's load again (~0.5 s). The caller stops waiting instead.
import { Piscina } from 'piscina';
import { EmbeddingError, untilAborted, type Embedder } from './embedder.js';
import { LOCAL_DIMENSIONS, LOCAL_MODEL, type EncoderBackend } from './local-encoder.js';

// From the TypeScript sources (tests, eval, bench) the worker is a .ts file that tsx loads.
const fromSource = import.meta.url.endsWith('.ts');
const WORKER = new URL(`./local-encoder-worker.${fromSource ? 'ts' : 'js'}`, import.meta.url);

export interface EmbeddedSourceOptions {
  threads?: number;
  /**
   * Tasks waiting for the worker at most (default 32); more are refused (`busy`) rather than queued
   * without bound. A search that stops waiting does not cancel its task (see above), so this also
   * bounds the work abandoned requests can pile up.
   */
  maxQueue?: number;
}

export interface EncoderWarmUp {
  loadMs: number;
  backend: EncoderBackend;
}

export function createEmbeddedSource(options: EmbeddedSourceOptions = {}): Embedder & { warmUp(): Promise<EncoderWarmUp> } {
  const pool = new Piscina<string[], unknown>({
    filename: WORKER.href,
    minThreads: options.threads ?? 1,
    maxThreads: options.threads ?? 1,
    idleTimeout: Number.POSITIVE_INFINITY,
    maxQueue: options.maxQueue ?? 32,
    ...(fromSource ? { execArgv: [...process.execArgv, '--import', 'tsx'] } : {}),
  });
  const embed = async (texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> => {
    if (texts.length === 0) return [];
    let packed: Float32Array | undefined;
    try {
      const work = pool.run([...texts]) as Promise<Float32Array>;
      packed = signal ? await untilAborted(work, signal) : await work;
    } catch (error) {
      if (error instanceof Error && /queue is at limit/i.test(error.message)) {
        throw new EmbeddingError('busy', 'the embedded encoder has too much work queued', { cause: error });
      }
      throw new EmbeddingError('upstream_error', `the embedded encoder failed: ${String(error)}`, { cause: error });
    }
    if (packed === undefined) throw new EmbeddingError('timeout', 'the search stopped waiting for the embedded encoder');
    return Array.from({ length: texts.length }, (_, i) => packed.subarray(i * LOCAL_DIMENSIONS, (i + 1) * LOCAL_DIMENSIONS));
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
