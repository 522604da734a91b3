import type { SharedVectors } from './vector-cache.js';
import type { SharedStore } from '../redis/shared-store.js';

/**
 * How long a vector stays in Redis after it was written. Vectors are keyed by content, so they never
 * go stale: the TTL only bounds Redis memory to the lists sent lately (a list searched every day is
 * embedded about once a day, over all replicas).
 */
const VECTOR_TTL_MS = 24 * 60 * 60 * 1000;
/** Up to 4,096 dimensions (text-embedding-3-large has 3,072; the embedded encoder 512). */
const MAX_VECTOR_BYTES = 4096 * 4;

/**
 * Tool and query vectors shared by all replicas, so a list embedded on one is hybrid on the others'
 * first search. Keys are `<prefix>vector:<project>:<keyed content id>`: the same per-project scope as
 * the in-process cache (vector-cache.ts says why); the content id (a SHA-256 of a request's or a tool's
 * text) is keyed again by `keyed` (the deployment's key, term-keys.ts), so a dump cannot confirm a
 * guessed request. Values are the raw Float32 bytes (2 KB for 512
 * dimensions; JSON would be about 4.5×), in the machine's byte order: every platform Node runs on
 * in production is little-endian.
 */
export function sharedVectors(store: SharedStore, keyed: (id: string) => string): SharedVectors {
  return {
    async read(projectId, ids) {
      const values = await store.getBuffers(
        'vector-read',
        ids.map((id) => store.key('vector', projectId, keyed(id))),
      );
      return values.map((value) => (value === undefined ? undefined : decode(value)));
    },
    write(projectId, entries) {
      const values = entries.map(
        ([id, vector]) =>
          [
            store.key('vector', projectId, keyed(id)),
            Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength),
          ] as const,
      );
      void store.setBuffers('vector-write', values, VECTOR_TTL_MS, MAX_VECTOR_BYTES);
    },
  };
}

/**
 * The vector, or undefined for a value that cannot be one of ours: every source's vectors are unit
 * length (embedder.ts), so a value of another length, with a non-finite entry or of another norm is
 * corrupted or foreign (a vector of norm 100 had been fused as 100 times as similar as any tool).
 */
function decode(value: Buffer): Float32Array | undefined {
  if (value.byteLength === 0 || value.byteLength % 4 !== 0 || value.byteLength > MAX_VECTOR_BYTES) return undefined;
  // Copied: a Buffer may start at an offset a Float32Array cannot view.
  const vector = new Float32Array(value.byteLength / 4);
  new Uint8Array(vector.buffer).set(value);
  let norm = 0;
  for (const x of vector) norm += x * x;
  // Float32 rounding leaves a unit vector's squared norm within ~1e-6 of 1; NaN fails the test too.
  return Math.abs(norm - 1) < 1e-3 ? vector : undefined;
}
