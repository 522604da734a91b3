// Vectors from any OpenAI-compatible `/v1/embeddings` endpoint (src/endpoint/: the caller's signal ends
// the call, no retries, a bounded body), each answer checked before use: one finite vector per input,
// all of the model's one length.
import { classifyEndpointError, createEndpointClient } from '../endpoint/openai-client.js';
import { EmbeddingError, normalize, type Embedder, type EmbeddingFailure } from './embedder.js';
import type { EncoderScripts } from './reading.js';

interface EndpointSourceOptions {
  baseURL: string;
  apiKey?: string;
  model: string;
  /** The scripts its model reads (EMBEDDINGS_SCRIPTS); undefined: every script. */
  scripts?: EncoderScripts;
  /** Inputs per request (OpenAI accepts up to 2,048). */
  batchSize?: number;
  /** The longest a call may take when the caller sets no deadline (background embedding). */
  timeoutMs?: number;
  /** Lets tests route the SDK. */
  fetch?: typeof fetch;
}

/**
 * Most bytes of one answer per input: 4,096 dimensions (text-embedding-3-large has 3,072) of up to 24
 * characters of JSON each.
 */
const MAX_ANSWER_BYTES_PER_INPUT = 4096 * 24;

export function createEndpointSource(options: EndpointSourceOptions): Embedder {
  const batchSize = options.batchSize ?? 128;
  const client = createEndpointClient({
    baseURL: options.baseURL,
    ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
    limits: { maxBytes: 64 * 1024 + batchSize * MAX_ANSWER_BYTES_PER_INPUT },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const timeoutMs = options.timeoutMs ?? 30_000;
  const vectorLength = new VectorLength();

  return {
    source: 'endpoint',
    scripts: options.scripts,
    model: options.model,
    batchSize,
    get dimensions() {
      return vectorLength.dimensions;
    },
    async embed(texts, { signal, headers } = {}) {
      if (texts.length === 0) return [];
      let answer: { data: unknown; model?: unknown };
      try {
        answer = await client.embeddings.create(
          { model: options.model, input: [...texts], encoding_format: 'float' },
          {
            ...(signal ? { signal } : {}),
            ...(headers ? { headers: { ...headers } } : {}),
            timeout: timeoutMs,
            maxRetries: 0,
          },
        );
      } catch (error) {
        throw new EmbeddingError(
          embeddingFailure(error, signal?.aborted === true),
          `embeddings endpoint: ${String(error)}`,
          {
            cause: error,
          },
        );
      }
      // The whole answer is checked before anything is learnt from it.
      const vectors = readVectors(answer.data, texts.length);
      vectorLength.check(vectors[0]!.length, typeof answer.model === 'string' ? answer.model : undefined);
      return vectors;
    },
    close: async () => {},
  };
}

/**
 * One finite vector per input, by index, all of one length, each scaled to unit length; else
 * `invalid_response`.
 */
function readVectors(data: unknown, inputs: number): Float32Array[] {
  if (!Array.isArray(data) || data.length !== inputs) {
    throw new EmbeddingError(
      'invalid_response',
      `embeddings endpoint answered ${Array.isArray(data) ? data.length : 'no'} vectors for ${inputs} inputs`,
    );
  }
  const vectors = new Array<Float32Array | undefined>(inputs);
  let length: number | undefined;
  for (const [position, item] of (data as Array<{ index?: unknown; embedding?: unknown } | null>).entries()) {
    const index = Number.isInteger(item?.index) ? (item!.index as number) : position;
    const values = item?.embedding;
    if (!Array.isArray(values) || index < 0 || index >= inputs || vectors[index] !== undefined) {
      throw new EmbeddingError('invalid_response', 'embeddings endpoint answered a malformed or repeated vector');
    }
    length ??= values.length;
    if (values.length !== length || length === 0) {
      throw new EmbeddingError(
        'invalid_response',
        `embeddings endpoint answered vectors of ${length} and ${values.length} dimensions in one answer`,
      );
    }
    const vector = new Float32Array(values.length);
    for (let i = 0; i < values.length; i += 1) {
      const value: unknown = values[i];
      if (typeof value !== 'number' || !Number.isFinite(value)) {
        throw new EmbeddingError('invalid_response', 'embeddings endpoint answered a vector with a non-number entry');
      }
      vector[i] = value;
    }
    vectors[index] = normalize(vector);
  }
  return vectors as Float32Array[];
}

/** Answers of a new length in a row (from a model of the same name) after which the new length is taken. */
const RELEARN_AFTER = 3;

/**
 * The model's vector length, learnt from answers that passed their checks: a vector of another length
 * cannot be compared with the others. Learnt from the first valid answer, never from one that failed
 * its checks (one malformed answer must not make every healthy one `invalid_response`). Learnt anew when the endpoint names another
 * model in its answers, or after RELEARN_AFTER valid answers in a row of one new length (a model
 * replaced under the same name); the stage then embeds its cached vectors of the old length again.
 */
class VectorLength {
  dimensions: number | undefined;
  #model: string | undefined;
  #candidate: { length: number; seen: number } | undefined;

  check(length: number, model: string | undefined): void {
    if (this.dimensions === undefined || length === this.dimensions) {
      this.dimensions = length;
      this.#model ??= model;
      this.#candidate = undefined;
      return;
    }
    const seen = this.#candidate?.length === length ? this.#candidate.seen + 1 : 1;
    if ((model !== undefined && model !== this.#model) || seen >= RELEARN_AFTER) {
      this.dimensions = length;
      this.#model = model;
      this.#candidate = undefined;
      return;
    }
    this.#candidate = { length, seen };
    throw new EmbeddingError(
      'invalid_response',
      `embeddings endpoint answered vectors of ${length} dimensions, expected ${this.dimensions}`,
    );
  }
}

/** An answer past its byte bound is not a usable answer: `invalid_response`. */
function embeddingFailure(error: unknown, aborted: boolean): EmbeddingFailure {
  const failure = classifyEndpointError(error, aborted);
  return failure === 'too_large' ? 'invalid_response' : failure;
}
