// The background embedder over the endpoint source (real SDK, real HTTP to our test server): what a
// search of a list being embedded costs it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackgroundEmbedder } from '../../src/semantic/background-embedder.js';
import { createEndpointSource } from '../../src/semantic/endpoint-source.js';
import { startOpenAITestServer, type OpenAITestServer } from '../helpers/openai-test-server.js';

let server: OpenAITestServer;
beforeAll(async () => {
  server = await startOpenAITestServer();
});
afterAll(() => server.close());

describe('background embedder', () => {
  it("asks for a tool's text only when it queues the tool: searches of a list being embedded work out no text again", async () => {
    server.setEmbeddings({ kind: 'vectors' }, 100);
    const embedder = createEndpointSource({ baseURL: server.baseURL, model: 'test-embed', batchSize: 8 });
    const embedded: string[] = [];
    const background = new BackgroundEmbedder(embedder, (_project, keys) => embedded.push(...keys), {
      maxQueuedPerProject: 100,
      maxQueuedTotal: 100,
      batchTimeoutMs: 10_000,
    });
    let textsAsked = 0;
    const list = new Map(
      Array.from({ length: 24 }, (_, i) => [
        `tool-${i}`,
        () => {
          textsAsked += 1;
          return `tool number ${i} reads the files of project ${i}`;
        },
      ]),
    );
    // Three searches of the list while its first batch is in flight, as a router's first minute sends them.
    for (let search = 0; search < 3; search += 1) await background.embed('p1', list, undefined);
    expect(textsAsked).toBe(24);
    await expect.poll(() => embedded.length, { timeout: 10_000 }).toBe(24);
    expect(new Set(embedded).size).toBe(24);
    await embedder.close();
  });
});
