// Any OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, Azure, vLLM, TEI, Ollama, LiteLLM) through
// the official SDK, with the LLM stage's rules: the caller's signal aborts the call, the SDK never
// retries (`maxRetries: 0`: a retry would outlive the deadline), and every answer is checked before
// use (one finite vector per input, all of the model's one length).
import OpenAI, { APIConnectionTimeoutError, APIUserAbortError, RateLimitError } from 'openai';
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
 * characters of JSON each. An answer is parsed whole, so without a bound an endpoint that sends
 * megabytes costs that much memory (as a 10 MB model answer once took RSS to 1.9 GB).
 */
const MAX_ANSWER_BYTES_PER_INPUT = 4096 * 24;

/** Thrown into a response body that passes its byte bound. */
class AnswerTooLargeError extends Error {}

/** A fetch whose response bodies fail with AnswerTooLargeError once they pass `maxBytes`. */
function boundedFetch(inner: typeof fetch, maxBytes: number): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    if (!response.body) return response;
    let total = 0;
    const bounded = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          total += chunk.byteLength;
          if (total > maxBytes)
            controller.error(new AnswerTooLargeError(`the embeddings answer passed ${maxBytes} bytes`));
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(bounded, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

export function createEndpointSource(options: EndpointSourceOptions): Embedder {
  const batchSize = options.batchSize ?? 128;
  const client = new OpenAI({
    baseURL: options.baseURL,
    apiKey: options.apiKey ?? 'unused',
    maxRetries: 0,
    fetch: boundedFetch(options.fetch ?? fetch, 64 * 1024 + batchSize * MAX_ANSWER_BYTES_PER_INPUT),
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
        throw new EmbeddingError(classify(error, signal?.aborted === true), `embeddings endpoint: ${String(error)}`, {
          cause: error,
        });
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
 * cannot be compared with the others. Learnt from the first valid answer (on main it was fixed by the
 * first vector read, before the answer was checked, so one malformed 3-dimension answer made every
 * healthy answer `invalid_response` until restart). Learnt anew when the endpoint names another
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

function classify(error: unknown, aborted: boolean): EmbeddingFailure {
  if (error instanceof AnswerTooLargeError || (error instanceof Error && error.cause instanceof AnswerTooLargeError))
    return 'invalid_response';
  if (aborted || error instanceof APIUserAbortError || error instanceof APIConnectionTimeoutError) return 'timeout';
  if (error instanceof RateLimitError) return 'rate_limited';
  return 'upstream_error';
}
