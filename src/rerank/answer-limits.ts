// Bounds on what the model's endpoint may send us. A model stuck in the JSON-mode whitespace loop,
// or an endpoint that sends a 10 MB answer, must cost a bounded amount of memory and CPU: without
// these limits a 10 MB answer took RSS to 1.9 GB and stalled the event loop for seconds. Real answers
// are far below them: 30 grades are about 2.5 KB of text; even grading 500 candidates is ~40 KB.

/** Most characters of answer text read; past it the call is stopped and the search says `answer_too_long`. */
export const MAX_ANSWER_CHARS = 64 * 1024;

/**
 * Most bytes of the whole response body, SSE envelopes included (about 200 bytes per streamed token).
 * Each event costs CPU to decode whatever it carries, so this bounds a call's work: 1 MB is ~5,000
 * deltas, several times a long real answer (grading 150 candidates is ~3,000 tokens), and decoding it
 * costs tens of milliseconds in total, spread over the stream.
 */
const MAX_STREAM_BYTES = 1024 * 1024;

/**
 * Most bytes of one server-sent event. The SDK collects an event by copying its buffer for every
 * network chunk and parses it whole, so a single 10 MB event would cost quadratic time; a real
 * event (one delta) is a few hundred bytes.
 */
const MAX_EVENT_BYTES = 256 * 1024;

/** Thrown into the response body when it passes a limit; streamAnswer turns it into `capped`. */
export class AnswerTooLongError extends Error {
  constructor(what: string) {
    super(`the model's response passed ${what}`);
    this.name = 'AnswerTooLongError';
  }
}

/**
 * A fetch for the SDK whose response bodies end with AnswerTooLongError once they pass
 * MAX_STREAM_BYTES, or once one server-sent event (the bytes between blank lines) passes
 * MAX_EVENT_BYTES. Counting is one pass over the bytes as they arrive. The body is also passed on one
 * event at a time: the SDK copies the rest of its buffer for every event it takes out of it, so a
 * 64 KB network chunk of 300 small events cost it ~20 MB of copying (a model streaming whitespace
 * in one-character deltas held the event loop for seconds).
 */
export function sizeLimitedFetch(inner: typeof fetch): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    if (!response.body) return response;
    let total = 0;
    let inEvent = 0;
    // The last bytes seen, to find the blank line that ends an event: \n\n, \r\r or \r\n\r\n.
    let last1 = 0;
    let last2 = 0;
    let last3 = 0;
    const limited = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          total += chunk.byteLength;
          if (total > MAX_STREAM_BYTES) {
            controller.error(new AnswerTooLongError(`${MAX_STREAM_BYTES} bytes`));
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
            if (inEvent > MAX_EVENT_BYTES) {
              controller.error(new AnswerTooLongError(`${MAX_EVENT_BYTES} bytes in one event`));
              return;
            }
            last3 = last2;
            last2 = last1;
            last1 = byte;
          }
          if (from < chunk.length) controller.enqueue(chunk.subarray(from));
        },
      }),
    );
    return new Response(limited, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
