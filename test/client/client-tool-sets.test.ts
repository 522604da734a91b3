// The client's tool-set reference protocol against the real service over loopback HTTP: the first
// search sends the list, later ones its id; a restarted service (409 TOOL_SET_UNKNOWN) gets the list
// once more; a changed list is always sent in full and never answered from the old set.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCatalogSearchClient, type CatalogSearchClient, type FetchLike } from '@catalog-search/client';
import type { ToolInfo } from '@catalog-search/core';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { LogCapture, testConfig } from '../helpers/app.js';
import { testToken } from '../helpers/tokens.js';
import { manyTools } from '../fixtures/tools.js';

const token = testToken({ projectId: 'project-a' });

/** What each POST carried: the reference, or a full list (streamed or gzipped bodies are full lists). */
type Sent = { toolSet: string } | 'full';
const sent: Sent[] = [];
const statuses: number[] = [];
const recordingFetch: FetchLike = async (input, init) => {
  const body = init.body;
  const parsed = typeof body === 'string' ? (JSON.parse(body) as { toolSet?: string; tools?: unknown }) : undefined;
  sent.push(parsed?.toolSet !== undefined && parsed.tools === undefined ? { toolSet: parsed.toolSet } : 'full');
  const response = await fetch(input, init);
  statuses.push(response.status);
  return response;
};

let app: FastifyInstance;
let port: number;
let client: CatalogSearchClient;

async function startService(): Promise<void> {
  app = buildApp(testConfig(), { logStream: new LogCapture() });
  await app.listen({ host: '127.0.0.1', port });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  port = address.port;
}

beforeAll(async () => {
  port = 0;
  await startService();
  client = createCatalogSearchClient({
    baseUrl: `http://127.0.0.1:${port}`,
    token,
    fetch: recordingFetch,
    breaker: false,
    fallback: false,
  });
});
afterAll(() => app.close());

const tools: ToolInfo[] = manyTools(300);
const search = (list: ToolInfo[], query = 'create a calendar event') =>
  client.search({ query: [query], tools: list, maxResults: 5 });

describe('client tool-set references against the real service', () => {
  it('sends the list first, then only its id, with the same answer', async () => {
    sent.length = 0;
    const first = await search(tools);
    expect(sent).toEqual(['full']);
    expect(first.source).toBe('cloud');
    const id = first.meta.toolSet!;
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const second = await search(tools);
    const third = await search(structuredClone(tools)); // equal content, new objects: the same id
    expect(sent).toEqual(['full', { toolSet: id }, { toolSet: id }]);
    expect(second.results).toEqual(first.results);
    expect(third.results).toEqual(first.results);
  });

  it('answers a restarted service that lost the list (409) with one resend', async () => {
    await app.close();
    await startService(); // same port, empty store
    sent.length = 0;
    statuses.length = 0;
    const outcome = await search(tools);
    expect(outcome.source).toBe('cloud');
    expect(sent).toEqual([{ toolSet: outcome.meta.toolSet }, 'full']);
    expect(statuses).toEqual([409, 200]);
    // And by reference again afterwards.
    await search(tools);
    expect(sent[2]).toEqual({ toolSet: outcome.meta.toolSet });
  });

  it('sends a changed list in full and answers from it, never from the stale set', async () => {
    const changed = tools.map((tool, index) =>
      index === 7
        ? {
            ...tool,
            toolName: 'launch_rocket',
            toolKey: 'space:launch_rocket',
            description: 'Launch a rocket into orbit.',
          }
        : tool,
    );
    sent.length = 0;
    const outcome = await search(changed, 'launch a rocket into orbit');
    expect(sent).toEqual(['full']);
    expect(outcome.results[0]!.toolKey).toBe('space:launch_rocket');

    // Changed in place (same array, same object): still a new id, sent in full.
    const inPlace = structuredClone(tools);
    await search(inPlace);
    sent.length = 0;
    inPlace[3]!.description = 'Transmit a telemetry packet to the ground station.';
    const answer = await search(inPlace, 'transmit telemetry packet to ground station');
    expect(sent).toEqual(['full']);
    expect(answer.results[0]!.toolKey).toBe(inPlace[3]!.toolKey);
  });
});

describe('client tool-set references under concurrent searches', () => {
  it('searches of two lists at once, across a restart, are all answered, and both lists are referred to afterwards', async () => {
    const other = manyTools(120).map((tool) => ({ ...tool, toolKey: `other:${tool.toolName}`, serverName: 'Other' }));
    await Promise.all([search(tools), search(other)]);
    const ids = [(await search(tools)).meta.toolSet!, (await search(other)).meta.toolSet!];
    await app.close();
    await startService(); // both lists lost
    sent.length = 0;
    const outcomes = await Promise.all([search(tools), search(tools), search(other), search(other)]);
    expect(outcomes.map((outcome) => outcome.source)).toEqual(['cloud', 'cloud', 'cloud', 'cloud']);
    // Each search: its reference refused, then its list.
    expect(sent.filter((entry) => entry === 'full')).toHaveLength(4);
    sent.length = 0;
    await Promise.all([search(tools), search(other)]);
    expect(sent).toEqual(expect.arrayContaining([{ toolSet: ids[0] }, { toolSet: ids[1] }]));
    expect(sent).toHaveLength(2);
  });
});

describe('client tool-set references: what the router sees does not depend on them', () => {
  it('reports the skipped tools of a list sent by reference as when it was sent in full', async () => {
    const withBad = [
      ...tools.slice(0, 50),
      { toolKey: 'broken:tool', serverName: 'Broken' } as unknown as ToolInfo,
      tools[0]!,
    ];
    const first = await search(withBad);
    expect(first.meta.skippedCount).toBe(2);
    sent.length = 0;
    const second = await search(withBad);
    expect(sent).toEqual([{ toolSet: first.meta.toolSet }]);
    expect(second.meta.skipped).toEqual(first.meta.skipped);
    expect(second.meta.skippedCount).toBe(2);
    expect(second.results).toEqual(first.results);
  });
});

describe('client tool-set references against a service that cannot keep the list', () => {
  // A list larger than the service's store (TOOL_SET_CACHE_BYTES, or a project's share of the cache
  // budget) and no Redis: the service answers it without an id, since any reference to it would be a
  // 409. (The client's own guard against a service that hands out such ids anyway is unit-tested in
  // test/tool-sets/references.test.ts.)
  let small: FastifyInstance;
  beforeAll(async () => {
    small = buildApp(testConfig({ toolSets: { ttlMs: 3_600_000, cacheBytes: 1024 } }), { logStream: new LogCapture() });
    await small.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => small.close());

  it('never refers to a list the service gave no id for: one full request per search, no 409', async () => {
    const address = small.server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    const smallClient = createCatalogSearchClient({
      baseUrl: `http://127.0.0.1:${address.port}`,
      token,
      fetch: recordingFetch,
      breaker: false,
      fallback: false,
    });
    sent.length = 0;
    statuses.length = 0;
    for (let i = 0; i < 5; i += 1) {
      const answer = await smallClient.search({ query: ['create a calendar event'], tools, maxResults: 5 });
      expect(answer.source).toBe('cloud');
      expect(answer.meta.toolSet).toBeUndefined();
    }
    expect(sent).toEqual(['full', 'full', 'full', 'full', 'full']);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
  });
});
