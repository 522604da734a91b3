import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCatalogSearchClient, type FetchLike } from '@catalog-search/client';
import { startApp, testConfig, type RunningApp } from '../helpers/app.js';
import { sampleTools } from '../fixtures/tools.js';
import { closedPortUrl, startServer, type LoopbackServer } from '../../packages/client/test/loopback.js';
import { TAUGHT_TOOL, UNMATCHED_REQUESTS } from '../routes/feedback-client.js';
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
      reports: {
        maxQueued: 3,
        flushDelayMs: 60_000,
        timeoutMs: 1000,
        retryDelayMs: 10,
        onDropped: (event) => dropped.push(event),
      },
    });
    const report = { requestId: 'r1', toolKey: 'a:b', outcome: 'succeeded' as const };
    client.reportOutcome([report, report, report, report, report]);
    client.reportOutcome(null as never);
    client.reportOutcome({ toolKey: 42 } as never);
    // Two dropped past the queue's bound; the three queued were tried three times, then given up on.
    await client.flushReports();
    expect(dropped.reduce((sum, event) => sum + event.reports, 0)).toBe(3);
    expect(client.pendingReports()).toBe(0);
  });
});

describe('client.flushReports: nothing lost', () => {
  const report = (toolKey: string) => ({ requestId: 'r1', toolKey, outcome: 'succeeded' as const });

  it('with the service down, resolves only once every report was retried and given up on', async () => {
    const dropped: Array<{ reports: number; reason: string }> = [];
    const client = createCatalogSearchClient({
      baseUrl: await closedPortUrl(),
      token: testToken({ projectId: 'client-down' }),
      reports: { flushDelayMs: 60_000, retryDelayMs: 200, onDropped: (event) => dropped.push(event) },
    });
    client.reportOutcome([report('a:b'), report('a:c')]);
    expect(client.pendingReports()).toBe(2);
    const started = performance.now();
    await client.flushReports();
    // Three attempts: now, +200 ms, +400 ms (the service down on each), then dropped and told.
    expect(dropped).toEqual([{ reports: 2, reason: expect.any(String) }]);
    expect(client.pendingReports()).toBe(0);
    expect(performance.now() - started).toBeGreaterThanOrEqual(390);
  });

  it('delivers what the service takes once it is back: a 503, then the real service', async () => {
    const dropped: unknown[] = [];
    const statuses: number[] = [];
    const accepted: Array<number | undefined> = [];
    // The real service behind a loopback hop that answers its first request with 503, as a restarting replica does.
    const proxy: LoopbackServer = await startServer((req, res, body) => {
      if (proxy.seen.length === 1) {
        res.writeHead(503).end();
        statuses.push(503);
        return;
      }
      void fetch(`${server.url}${req.url}`, {
        method: req.method,
        headers: { authorization: req.headers.authorization!, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then(async (response) => {
        const text = await response.text();
        statuses.push(response.status);
        accepted.push((JSON.parse(text) as { accepted?: number }).accepted);
        res.writeHead(response.status, { 'content-type': 'application/json' }).end(text);
      });
    });
    try {
      const client = createCatalogSearchClient({
        baseUrl: proxy.baseUrl,
        token: testToken({ projectId: 'client-back' }),
        reports: { flushDelayMs: 60_000, retryDelayMs: 200, onDropped: (event) => dropped.push(event) },
      });
      const { meta } = await createCatalogSearchClient({
        baseUrl: server.url,
        token: testToken({ projectId: 'client-back' }),
      }).search({ query: ['squad retro takeaways'], tools: sampleTools, maxResults: 5 });
      client.reportOutcome({ requestId: meta.requestId, toolKey: TAUGHT_TOOL, outcome: 'succeeded' });
      await client.flushReports();
      expect(statuses).toEqual([503, 202]);
      expect(accepted).toEqual([1]);
      expect(dropped).toEqual([]);
      expect(client.pendingReports()).toBe(0);
    } finally {
      await proxy.close();
    }
  });

  it('resolves at the bound the caller sets, and says how many reports are still pending', async () => {
    const dropped: unknown[] = [];
    const client = createCatalogSearchClient({
      baseUrl: await closedPortUrl(),
      token: testToken({ projectId: 'client-bound' }),
      reports: { flushDelayMs: 60_000, retryDelayMs: 60_000, onDropped: (event) => dropped.push(event) },
    });
    client.reportOutcome([report('a:b'), report('a:c')]);
    const started = performance.now();
    await client.flushReports({ timeoutMs: 300 });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(dropped).toEqual([]);
    expect(client.pendingReports()).toBe(2);
  });
});
