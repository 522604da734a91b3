import type { EncoderScripts } from './reading.js';

/**
 * A source of sentence vectors: the embedded encoder (a worker thread) or an OpenAI-compatible
 * `/v1/embeddings` endpoint. Vectors come back unit-length, so cosine similarity is a dot product.
 */
export interface Embedder {
  /** Which source answers (startup logs, `meta`). */
  readonly source: 'embedded' | 'endpoint';
  /** The model's name: part of every vector cache key, so two models' vectors never mix. */
  readonly model: string;
  /** Tool texts per background call (the stage embeds lists in batches of this size). */
  readonly batchSize: number;
  /**
   * The writing systems it reads (Unicode script names; undefined: every script). A request in other
   * scripts is not embedded: its meaning-only matches would be noise (reading.ts).
   */
  readonly scripts?: EncoderScripts;
  /** The length of its vectors, once known (an endpoint's, from its first valid answer). */
  readonly dimensions: number | undefined;
  /** One vector per text, in order. Rejects with an `EmbeddingError`. */
  embed(texts: readonly string[], call?: EmbedCall): Promise<Float32Array[]>;
  close(): Promise<void>;
}

/** What goes with one embed call besides its texts. */
export interface EmbedCall {
  /** Aborts the call (the embedded encoder stops waiting; see embedded-source.ts). */
  signal?: AbortSignal | undefined;
  /** Headers of an outbound call (the search's W3C trace context); the embedded encoder has none. */
  headers?: Readonly<Record<string, string>> | undefined;
  /** Whose texts these are: the embedded encoder shares its thread fairly between projects. */
  projectId?: string | undefined;
  /**
   * Tool texts embedded away from any search (the background embedder's batches): the embedded encoder
   * runs them in its low-priority lane, so that no request waits behind them.
   */
  background?: boolean | undefined;
}

/**
 * Why vectors could not be had: the LLM stage's vocabulary, answers we cannot use (`invalid_response`),
 * and the embedded encoder's queue being full (`busy`).
 */
export type EmbeddingFailure = 'timeout' | 'rate_limited' | 'upstream_error' | 'invalid_response' | 'busy';

export class EmbeddingError extends Error {
  constructor(
    readonly reason: EmbeddingFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'EmbeddingError';
  }
}

/**
 * Scales a vector to unit length in place. A vector with a non-finite entry, or of zero length,
 * is refused: it would rank every tool as equally (un)similar.
 */
export function normalize(vector: Float32Array): Float32Array {
  let norm = 0;
  for (let i = 0; i < vector.length; i += 1) norm += vector[i]! * vector[i]!;
  if (!Number.isFinite(norm) || norm === 0) {
    throw new EmbeddingError('invalid_response', 'a vector has a non-finite entry or zero length');
  }
  const scale = 1 / Math.sqrt(norm);
  for (let i = 0; i < vector.length; i += 1) vector[i]! *= scale;
  return vector;
}

/**
 * `a · b` over the length of the shorter. Four running sums rather than one: the additions no longer
 * wait on each other. 1,000 tools × 2 queries × 512 dimensions took 0.87 ms instead of 1.35 ms (Node 20,
 * this machine).
 */
export function dot(a: Float32Array, b: Float32Array): number {
  return dotAt(a, b, 0, Math.min(a.length, b.length));
}

/** The largest `dot(query, vector)` over the queries. */
export function bestDot(queries: readonly Float32Array[], vector: Float32Array): number {
  return bestDotAt(queries, vector, 0, vector.length);
}

/**
 * The largest dot product of a query with the vector of `length` numbers at `at` in `values` (a vector
 * of its own, or a row of a list's matrix, tool-vectors.ts), each over the shorter of the two. Two
 * queries of one length go through one pass over the vector, so each of its numbers is read once for
 * both: 1,000 tools × 2 queries × 512 dimensions took 0.62 ms instead of 0.84 ms with one `dot` per
 * query (Node 20, this machine). Each query's four running sums add up exactly as in `dot`, so the
 * result is the same number, to the last bit, wherever the vector is.
 */
export function bestDotAt(queries: readonly Float32Array[], values: Float32Array, at: number, length: number): number {
  let best = -Infinity;
  let q = 0;
  for (; q + 1 < queries.length; q += 2) {
    const a = queries[q]!;
    const b = queries[q + 1]!;
    const score =
      a.length === b.length
        ? maxOfPairAt(a, b, values, at, Math.min(a.length, length))
        : Math.max(dotAt(a, values, at, Math.min(a.length, length)), dotAt(b, values, at, Math.min(b.length, length)));
    if (score > best) best = score;
  }
  if (q < queries.length) {
    const a = queries[q]!;
    const score = dotAt(a, values, at, Math.min(a.length, length));
    if (score > best) best = score;
  }
  return best;
}

/** `a · v` over `length` numbers, v at `at` in `values`: four running sums, added up in one order. */
function dotAt(a: Float32Array, values: Float32Array, at: number, length: number): number {
  const whole = length - (length % 4);
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = 0;
  for (; i < whole; i += 4) {
    s0 += a[i]! * values[at + i]!;
    s1 += a[i + 1]! * values[at + i + 1]!;
    s2 += a[i + 2]! * values[at + i + 2]!;
    s3 += a[i + 3]! * values[at + i + 3]!;
  }
  for (; i < length; i += 1) s0 += a[i]! * values[at + i]!;
  return s0 + s1 + s2 + s3;
}

/** max(a · v, b · v) over `length` numbers in one pass over v (at `at` in `values`), each as `dotAt` sums. */
function maxOfPairAt(a: Float32Array, b: Float32Array, values: Float32Array, at: number, length: number): number {
  const whole = length - (length % 4);
  let a0 = 0;
  let a1 = 0;
  let a2 = 0;
  let a3 = 0;
  let b0 = 0;
  let b1 = 0;
  let b2 = 0;
  let b3 = 0;
  let i = 0;
  for (; i < whole; i += 4) {
    const v0 = values[at + i]!;
    const v1 = values[at + i + 1]!;
    const v2 = values[at + i + 2]!;
    const v3 = values[at + i + 3]!;
    a0 += a[i]! * v0;
    a1 += a[i + 1]! * v1;
    a2 += a[i + 2]! * v2;
    a3 += a[i + 3]! * v3;
    b0 += b[i]! * v0;
    b1 += b[i + 1]! * v1;
    b2 += b[i + 2]! * v2;
    b3 += b[i + 3]! * v3;
  }
  for (; i < length; i += 1) {
    a0 += a[i]! * values[at + i]!;
    b0 += b[i]! * values[at + i]!;
  }
  return Math.max(a0 + a1 + a2 + a3, b0 + b1 + b2 + b3);
}

/**
 * The promise's outcome, or undefined once the signal aborts: the caller stops waiting, the work goes
 * on (a late failure is then ignored).
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.resolve(undefined);
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
