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
