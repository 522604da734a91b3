// The endpoint source through the real openai SDK over HTTP to our test server, faults included.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EmbeddingError } from '../../src/semantic/embedder.js';
import { createEndpointSource } from '../../src/semantic/endpoint-source.js';
import {
  EMBEDDING_TEST_DIMENSIONS,
  startOpenAITestServer,
  type OpenAITestServer,
} from '../helpers/openai-test-server.js';

let server: OpenAITestServer;
beforeAll(async () => {
  server = await startOpenAITestServer();
});
afterAll(() => server.close());
beforeEach(() => server.setEmbeddings({ kind: 'vectors' }));

const source = () => createEndpointSource({ baseURL: server.baseURL, apiKey: 'test-key', model: 'test-embed' });

async function failure(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(EmbeddingError);
  return (error as EmbeddingError).reason;
}

describe('endpoint embeddings source', () => {
  it('answers one unit vector per input, in order, asking for floats with the configured model', async () => {
    const vectors = await source().embed(['list calendar events', 'send an email', 'list calendar events']);
    expect(vectors).toHaveLength(3);
    expect(vectors[0]).toHaveLength(EMBEDDING_TEST_DIMENSIONS);
    const norm = Math.hypot(...vectors[0]!);
    expect(norm).toBeCloseTo(1, 5);
    expect([...vectors[2]!]).toEqual([...vectors[0]!]);
    expect([...vectors[1]!]).not.toEqual([...vectors[0]!]);
    const request = server.embeddingRequests.at(-1)!;
    expect(request).toMatchObject({
      model: 'test-embed',
      encoding_format: 'float',
      input: ['list calendar events', 'send an email', 'list calendar events'],
    });
  });

  it('a hanging endpoint: the caller signal aborts the call, reported as timeout', async () => {
    server.setEmbeddings({ kind: 'hang' });
    const started = performance.now();
    expect(await failure(source().embed(['a'], { signal: AbortSignal.timeout(200) }))).toBe('timeout');
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('HTTP 500 is upstream_error and 429 is rate_limited, without retries', async () => {
    server.setEmbeddings({ kind: 'error', status: 500 });
    const before = server.embeddingRequests.length;
    expect(await failure(source().embed(['a']))).toBe('upstream_error');
    expect(server.embeddingRequests.length - before).toBe(1);
    server.setEmbeddings({ kind: 'error', status: 429 });
    expect(await failure(source().embed(['a']))).toBe('rate_limited');
  });

  it.each([
    ['wrong-dimensions', ['a b c', 'd e f']],
    ['nan', ['a b c']],
    ['fewer', ['a b c', 'd e f']],
  ] as const)('an answer with %s is invalid_response', async (kind, inputs) => {
    server.setEmbeddings({ kind });
    expect(await failure(source().embed([...inputs]))).toBe('invalid_response');
  });

  it('a model that changes its vector length is refused, until three answers in a row of the new length teach it', async () => {
    const embedder = source();
    await embedder.embed(['first']);
    expect(embedder.dimensions).toBe(EMBEDDING_TEST_DIMENSIONS);
    server.setEmbeddings({ kind: 'vectors', vector: () => [1, 2, 3] });
    expect(await failure(embedder.embed(['second']))).toBe('invalid_response');
    expect(await failure(embedder.embed(['third']))).toBe('invalid_response');
    expect(embedder.dimensions).toBe(EMBEDDING_TEST_DIMENSIONS);
    // A model replaced under the same name: its length is learnt anew (the stage re-embeds vectors of the old one).
    expect(await embedder.embed(['fourth'])).toHaveLength(1);
    expect(embedder.dimensions).toBe(3);
  });

  it('one malformed answer teaches nothing: healthy answers after it are used', async () => {
    const embedder = source();
    // Three dimensions, one of them not a number (JSON null): the whole answer is refused before its length is learnt.
    server.setEmbeddings({ kind: 'vectors', vector: () => [1, 2, Number.NaN] });
    expect(await failure(embedder.embed(['broken']))).toBe('invalid_response');
    expect(embedder.dimensions).toBeUndefined();
    server.setEmbeddings({ kind: 'vectors' });
    for (let call = 0; call < 3; call += 1) expect(await embedder.embed([`healthy ${call}`])).toHaveLength(1);
    expect(embedder.dimensions).toBe(EMBEDDING_TEST_DIMENSIONS);
  });

  it('an answer larger than any real one (here ~1.3 MB for one input) is refused while it arrives, as invalid_response', async () => {
    const embedder = createEndpointSource({
      baseURL: server.baseURL,
      apiKey: 'test-key',
      model: 'test-embed',
      batchSize: 1,
    });
    server.setEmbeddings({ kind: 'vectors', vector: () => Array.from({ length: 100_000 }, (_, i) => 0.123456789 + i) });
    expect(await failure(embedder.embed(['huge']))).toBe('invalid_response');
    server.setEmbeddings({ kind: 'vectors' });
    expect(await embedder.embed(['normal'])).toHaveLength(1); // the next answer is read as usual
  });
});
