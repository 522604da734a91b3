import { afterAll, describe, expect, it } from 'vitest';
import {
  createCatalogSearchClient,
  DEFAULT_COOLDOWN_MS,
  DEFAULT_FAILURE_THRESHOLD,
  type SearchEvent,
} from '@catalog-search/client';
import { buildApp } from '../../src/app.js';
import { LogCapture, startApp, testConfig, type RunningApp } from '../helpers/app.js';
import { testToken } from '../helpers/tokens.js';
import { sampleRequest } from '../fixtures/tools.js';

// The client's telemetry hook, trace pass-through and recovery, against the real service on loopback.

const request = sampleRequest;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const running: RunningApp[] = [];
afterAll(async () => {
  for (const app of running) await app.app.close();
});

describe('onSearch and trace context against the real service', () => {
  it('onSearch sees every search (cloud, local, rejected) and the service continues the router trace', async () => {
    const service = await startApp(testConfig());
    running.push(service);
    const events: SearchEvent[] = [];
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const client = createCatalogSearchClient({
      baseUrl: service.url,
      token: testToken({ projectId: 'project-a' }),
      onSearch: (event) => events.push(event),
      traceContext: () => ({ traceparent, tracestate: 'router=1' }),
    });
    const cloud = await client.search(request, { requestId: 'traced-1' });
    await expect(client.search({ ...request, maxResults: 500 })).rejects.toThrow('/maxResults');
    await service.app.close();
    const local = await client.search(request);

    expect(events.map(({ source, fallbackReason }) => ({ source, fallbackReason }))).toEqual([
      { source: 'cloud', fallbackReason: undefined },
      { source: 'none', fallbackReason: undefined },
      { source: 'local', fallbackReason: 'network' },
    ]);
    expect(events[0]).toMatchObject({ requestId: 'traced-1', ranker: 'bm25', resultCount: cloud.results.length });
    expect(events[2]).toMatchObject({
      requestId: local.meta.requestId,
      ranker: 'bm25',
      resultCount: local.results.length,
    });
    expect(events[1]!.error?.name).toBe('InvalidRequestError');
    for (const event of events) expect(event.durationMs).toBeGreaterThan(0);
    // The service's audit line carries the router's trace id.
    const audit = service.logs.lines.find((line) => line.audit === 'search' && line.requestId === 'traced-1');
    expect(audit).toMatchObject({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736' });
  });
});

describe('recovery after an outage', () => {
  it('answers from the cloud within 5 s of the service coming back, not after the 30 s cool-down', async () => {
    const first = await startApp(testConfig());
    const port = Number(new URL(first.url).port);
    const sources: string[] = [];
    const client = createCatalogSearchClient({
      baseUrl: first.url,
      token: testToken({ projectId: 'project-a' }),
      onSearch: (event) => sources.push(event.source),
    });
    expect((await client.search(request)).source).toBe('cloud');

    // The service goes away: the breaker opens after its threshold of failures.
    await first.app.close();
    for (let i = 0; i < DEFAULT_FAILURE_THRESHOLD; i += 1)
      expect((await client.search(request)).fallbackReason).toBe('network');
    expect(client.circuit().state).toBe('open');
    // Still down a while, with the router searching every 250 ms (answered locally, probes refused).
    for (let i = 0; i < 8; i += 1) {
      expect((await client.search(request)).fallbackReason).toBe('circuit_open');
      await sleep(250);
    }

    // Back on the same port.
    const logs = new LogCapture();
    const second = buildApp(testConfig(), { logStream: logs });
    await second.listen({ port, host: '127.0.0.1' });
    running.push({ app: second, url: first.url, logs, close: () => second.close() });
    const backAt = Date.now();
    let recoveredAfterMs: number | undefined;
    while (Date.now() - backAt < DEFAULT_COOLDOWN_MS) {
      if ((await client.search(request)).source === 'cloud') {
        recoveredAfterMs = Date.now() - backAt;
        break;
      }
      await sleep(250);
    }
    console.log(
      `[client-recovery] back on the cloud ${recoveredAfterMs} ms after the service returned (searches every 250 ms)`,
    );
    expect(recoveredAfterMs).toBeDefined();
    expect(recoveredAfterMs!).toBeLessThan(5000);
    expect(client.circuit().state).toBe('closed');
    expect(sources).not.toContain('none');
  }, 60_000);
});
