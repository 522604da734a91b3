import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCatalogSearchClient, type FetchLike } from '@catalog-search/client';
import { startApp, testConfig, type RunningApp } from '../helpers/app.js';
import { sampleTools } from '../fixtures/tools.js';
import { closedPortUrl } from '../../packages/client/test/loopback.js';
import { TAUGHT_TOOL, UNMATCHED_REQUESTS } from '../feedback/feedback-client.js';
import { testToken } from '../helpers/tokens.js';

// The router's loop with the client against the real service: search → execute → reportOutcome.

let server: RunningApp;
beforeAll(async () => {
  server = await startApp(testConfig());
});
afterAll(() => server.close());

describe('client.reportOutcome against the real service', () => {
  it('batches reports by requestId; the next search ranks the used tool first', async () => {
    const sent: number[] = [];
    const counting: FetchLike = async (input, init) => {
      if (input.endsWith('/feedback'))
        sent.push((JSON.parse(String(init.body)) as { events: unknown[] }).events.length);
      return fetch(input, init);
    };
    const client = createCatalogSearchClient({
      baseUrl: server.url,
      token: testToken({ projectId: 'client-loop' }),
      fetch: counting,
      reports: { flushDelayMs: 60_000 },
    });
    for (const query of UNMATCHED_REQUESTS) {
      const { meta } = await client.search({ query, tools: sampleTools, maxResults: 5 });
      // ... the router's agent calls TAUGHT_TOOL with tool_execute, and it works:
      expect(
        client.reportOutcome({ requestId: meta.requestId, toolKey: TAUGHT_TOOL, outcome: 'succeeded' }),
      ).toBeUndefined();
    }
    await client.flushReports();
    expect(sent).toEqual([UNMATCHED_REQUESTS.length]); // one request for the four reports
    const after = await client.search({ query: ['squad retro takeaways'], tools: sampleTools, maxResults: 5 });
    expect(after.source).toBe('cloud');
    expect(after.results[0]!.toolKey).toBe(TAUGHT_TOOL);
    expect(after.meta.learning).toBe('raised');
  });

  it('never throws into the caller: a dead service, a full queue and junk reports are dropped and counted', async () => {
    const dropped: Array<{ reports: number; reason: string }> = [];
    const client = createCatalogSearchClient({
      baseUrl: await closedPortUrl(),
      token: testToken({ projectId: 'client-dead' }),
      reports: { maxQueued: 3, flushDelayMs: 60_000, timeoutMs: 1000, onDropped: (event) => dropped.push(event) },
    });
    const report = { requestId: 'r1', toolKey: 'a:b', outcome: 'succeeded' as const };
    client.reportOutcome([report, report, report, report, report]);
    client.reportOutcome(null as never);
    client.reportOutcome({ toolKey: 42 } as never);
    await client.flushReports();
    // Two dropped past the queue's bound; the three queued were tried once and are kept for a retry.
    await client.flushReports();
    await client.flushReports();
    expect(dropped.reduce((sum, event) => sum + event.reports, 0)).toBe(3);
  });
});
