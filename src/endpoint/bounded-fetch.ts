// Bounds on what an OpenAI-compatible endpoint may send us. A response is parsed whole (embeddings) or
// event by event (a streamed chat answer), so without a bound an endpoint that sends megabytes costs
// that much memory and CPU (why: docs/performance.md#bounded-model-answers).

/** Thrown into a response body that passes its limits; the caller reads it as a failed or capped answer. */
export class ResponseTooLargeError extends Error {
  constructor(what: string) {
    super(`the endpoint's response passed ${what}`);
    this.name = 'ResponseTooLargeError';
  }
}

export interface BodyLimits {
  /** Most bytes of the whole response body. */
  maxBytes: number;
  /**
   * Most bytes of one server-sent event (the bytes between blank lines), for streamed answers. When set,
   * the body is also passed on one event at a time: the SDK copies the rest of its buffer for every
   * event it takes out of it, so a network chunk of hundreds of small events would cost it quadratic copying.
   */
  maxEventBytes?: number;
}

/** Whether `error` (or its cause, as the SDK wraps body errors) is a passed limit. */
export function isTooLarge(error: unknown): boolean {
  return (
    error instanceof ResponseTooLargeError || (error instanceof Error && error.cause instanceof ResponseTooLargeError)
  );
}

/** A fetch for the SDK whose response bodies fail with ResponseTooLargeError once they pass `limits`. */
export function boundedFetch(inner: typeof fetch, limits: BodyLimits): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    if (!response.body) return response;
    const bounded = response.body.pipeThrough(
      limits.maxEventBytes === undefined
        ? totalLimit(limits.maxBytes)
        : eventLimits(limits.maxBytes, limits.maxEventBytes),
    );
    return new Response(bounded, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

function totalLimit(maxBytes: number): TransformStream<Uint8Array, Uint8Array> {
  let total = 0;
  return new TransformStream({
    transform(chunk, controller) {
      total += chunk.byteLength;
      if (total > maxBytes) controller.error(new ResponseTooLargeError(`${maxBytes} bytes`));
      else controller.enqueue(chunk);
    },
  });
}

/** The total limit, plus a limit per server-sent event; one pass over the bytes as they arrive. */
function eventLimits(maxBytes: number, maxEventBytes: number): TransformStream<Uint8Array, Uint8Array> {
  let total = 0;
  let inEvent = 0;
  // The last bytes seen, to find the blank line that ends an event: \n\n, \r\r or \r\n\r\n.
  let last1 = 0;
  let last2 = 0;
  let last3 = 0;
  return new TransformStream({
    transform(chunk, controller) {
      total += chunk.byteLength;
      if (total > maxBytes) {
        controller.error(new ResponseTooLargeError(`${maxBytes} bytes`));
        return;
      }
      let from = 0;
      for (let at = 0; at < chunk.length; at += 1) {
        const byte = chunk[at]!;
        inEvent += 1;
        if (
          (byte === 10 && (last1 === 10 || (last1 === 13 && last2 === 10 && last3 === 13))) ||
          (byte === 13 && last1 === 13)
        ) {
          inEvent = 0;
          controller.enqueue(chunk.subarray(from, at + 1));
          from = at + 1;
        }
        if (inEvent > maxEventBytes) {
          controller.error(new ResponseTooLargeError(`${maxEventBytes} bytes in one event`));
          return;
        }
        last3 = last2;
        last2 = last1;
        last1 = byte;
      }
      if (from < chunk.length) controller.enqueue(chunk.subarray(from));
    },
  });
}
