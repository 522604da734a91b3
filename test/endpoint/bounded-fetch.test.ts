// The one bounded body both model stages read an endpoint through (src/endpoint/bounded-fetch.ts): a
// body past its total or per-event limit fails with ResponseTooLargeError, a streamed body is passed on
// one server-sent event at a time, and a body within its limits arrives byte for byte.
import { describe, expect, it } from 'vitest';
import { boundedFetch, isTooLarge, ResponseTooLargeError } from '../../src/endpoint/bounded-fetch.js';

const encoder = new TextEncoder();

/** A fetch answering with `chunks` as the body, each its own network chunk. */
const answering =
  (chunks: string[]): typeof fetch =>
  () =>
    Promise.resolve(
      new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
            controller.close();
          },
        }),
        { status: 200, headers: { 'content-type': 'text/event-stream' } },
      ),
    );

async function readChunks(response: Response): Promise<string[]> {
  const decoder = new TextDecoder();
  const chunks: string[] = [];
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) chunks.push(decoder.decode(chunk));
  return chunks;
}

describe('boundedFetch', () => {
  it('passes a body within its limits unchanged', async () => {
    const response = await boundedFetch(answering(['{"data":', '[1,2,3]}']), { maxBytes: 100 })('http://x');
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('{"data":[1,2,3]}');
  });

  it('fails a body past its total bytes with ResponseTooLargeError', async () => {
    const response = await boundedFetch(answering(['x'.repeat(60), 'x'.repeat(60)]), { maxBytes: 100 })('http://x');
    const failure = await response.text().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ResponseTooLargeError);
    expect(isTooLarge(failure)).toBe(true);
    expect(isTooLarge(new Error('wrapped', { cause: failure }))).toBe(true);
    expect(isTooLarge(new Error('other'))).toBe(false);
  });

  it('passes a stream on one event at a time, whatever the network chunks', async () => {
    const events = ['data: {"a":1}\n\n', 'data: {"b":2}\r\n\r\n', 'data: {"c":3}\n\n'];
    const response = await boundedFetch(answering([events.join('')]), { maxBytes: 1000, maxEventBytes: 100 })(
      'http://x',
    );
    expect(await readChunks(response)).toEqual(events);
  });

  it('fails one event past its bytes even when the whole body is within its total', async () => {
    const response = await boundedFetch(answering(['data: small\n\n', `data: ${'x'.repeat(200)}`]), {
      maxBytes: 10_000,
      maxEventBytes: 100,
    })('http://x');
    await expect(response.text()).rejects.toThrow(/100 bytes in one event/);
  });
});
