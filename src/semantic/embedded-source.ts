// The embedded encoder behind the Embedder interface, off the main thread: a piscina pool whose
// worker (local-encoder-worker.ts) loads the model once and keeps it (no idle timeout). One thread by
// default: on a 2-core host the other core serves requests; a batch of 16 tool texts takes ~0.25 s
// there, a short query ~13 ms (docs/performance.md).
import { Piscina } from 'piscina';
import { EmbeddingError, type Embedder } from './embedder.js';
import { LOCAL_DIMENSIONS, LOCAL_MODEL } from './local-encoder.js';

// From the TypeScript sources (tests, eval, bench) the worker is a .ts file that tsx loads.
const fromSource = import.meta.url.endsWith('.ts');
const WORKER = new URL(`./local-encoder-worker.${fromSource ? 'ts' : 'js'}`, import.meta.url);

export interface EmbeddedSourceOptions {
  threads?: number;
}

export function createEmbeddedSource(options: EmbeddedSourceOptions = {}): Embedder & { warmUp(): Promise<number> } {
  const pool = new Piscina<string[], Float32Array>({
    filename: WORKER.href,
    minThreads: options.threads ?? 1,
    maxThreads: options.threads ?? 1,
    idleTimeout: Number.POSITIVE_INFINITY,
    ...(fromSource ? { execArgv: [...process.execArgv, '--import', 'tsx'] } : {}),
  });
  const embed = async (texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> => {
    if (texts.length === 0) return [];
    let packed: Float32Array;
    try {
      packed = await pool.run([...texts], signal ? { signal } : {});
    } catch (error) {
      if (signal?.aborted) throw new EmbeddingError('timeout', 'embedding was aborted at the deadline', { cause: error });
      throw new EmbeddingError('upstream_error', `the embedded encoder failed: ${String(error)}`, { cause: error });
    }
    return Array.from({ length: texts.length }, (_, i) => packed.subarray(i * LOCAL_DIMENSIONS, (i + 1) * LOCAL_DIMENSIONS));
  };
  return {
    source: 'embedded',
    model: LOCAL_MODEL,
    batchSize: 16,
    embed,
    /** Loads the model in the worker now (instead of on the first search); resolves with the ms it took. */
    async warmUp() {
      const started = performance.now();
      await embed(['warm up']);
      return performance.now() - started;
    },
    close: () => pool.destroy(),
  };
}
