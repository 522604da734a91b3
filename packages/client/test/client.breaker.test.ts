import { afterEach, describe, expect, it } from 'vitest';
import {
  CircuitOpenError,
  createCatalogSearchClient,
  DEFAULT_COOLDOWN_MS,
  DEFAULT_FAILURE_THRESHOLD,
  InternalServerError,
  type CatalogSearchClientOptions,
  type FallbackEvent,
} from '@catalog-search/client';
import { cloudAnswer, expectedLocalResults, REQUEST, sendJson, startServer, type LoopbackServer } from './loopback.js';
import { testClient } from './test-client.js';

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A server whose behaviour the test switches, a fake clock, and a client with the default breaker. */
async function setup(options: Partial<CatalogSearchClientOptions> = {}) {
  let mode: 'fail' | 'ok' | 'hang' | 'limit' = 'fail';
  server = await startServer((_req, res) => {
    if (mode === 'ok') sendJson(res, 200, cloudAnswer());
    else if (mode === 'fail') sendJson(res, 500, { title: 'Internal Server Error', status: 500 });
    else if (mode === 'limit') sendJson(res, 429, { title: 'Too Many Requests' }, { 'retry-after': '120' });
  });
  const clock = { now: 1_000_000 };
  const events: FallbackEvent[] = [];
  const client = testClient(server.baseUrl, {
    timeoutMs: 5000,
    breaker: { now: () => clock.now },
    onFallback: (event) => events.push(event),
    ...options,
  });
  const calls = () => server!.seen.length;
  return { client, clock, events, calls, setMode: (next: typeof mode) => (mode = next) };
}

describe('circuit breaker', () => {
  it(`opens after ${DEFAULT_FAILURE_THRESHOLD} consecutive failures and then skips the cloud`, async () => {
    const { client, events, calls } = await setup();
    for (let i = 0; i < DEFAULT_FAILURE_THRESHOLD; i += 1) {
      expect((await client.search(REQUEST)).fallbackReason).toBe('server_error');
    }
    expect(client.circuit()).toMatchObject({ state: 'open', consecutiveFailures: DEFAULT_FAILURE_THRESHOLD });

    const skipped = await client.search(REQUEST);
    expect(skipped.source).toBe('local');
    expect(skipped.fallbackReason).toBe('circuit_open');
    expect(skipped.results).toEqual(expectedLocalResults(REQUEST));
    expect(calls()).toBe(DEFAULT_FAILURE_THRESHOLD);
    const last = events.at(-1)!.error as CircuitOpenError;
    expect(last).toBeInstanceOf(CircuitOpenError);
    expect(last.cause).toBeInstanceOf(InternalServerError);
  });

  it('probes once after the cool-down and closes on success', async () => {
    const { client, clock, calls, setMode } = await setup();
    for (let i = 0; i < DEFAULT_FAILURE_THRESHOLD; i += 1) await client.search(REQUEST);
    clock.now += DEFAULT_COOLDOWN_MS - 1;
    expect((await client.search(REQUEST)).fallbackReason).toBe('circuit_open');

    setMode('ok');
    clock.now += 1;
    expect(client.circuit().state).toBe('half_open');
    const probe = await client.search(REQUEST);
    expect(probe.source).toBe('cloud');
    expect(calls()).toBe(DEFAULT_FAILURE_THRESHOLD + 1);
    expect(client.circuit()).toEqual({ state: 'closed', consecutiveFailures: 0 });
    expect((await client.search(REQUEST)).source).toBe('cloud');
  });

  it('re-opens for a whole cool-down when the probe fails', async () => {
    const { client, clock, calls } = await setup();
    for (let i = 0; i < DEFAULT_FAILURE_THRESHOLD; i += 1) await client.search(REQUEST);
    clock.now += DEFAULT_COOLDOWN_MS;
    expect((await client.search(REQUEST)).fallbackReason).toBe('server_error');
    expect(calls()).toBe(DEFAULT_FAILURE_THRESHOLD + 1);
    expect(client.circuit()).toMatchObject({ state: 'open', retryAt: clock.now + DEFAULT_COOLDOWN_MS });
    expect((await client.search(REQUEST)).fallbackReason).toBe('circuit_open');
  });

  it('lets exactly one probe through while half-open; the others rank locally at once', async () => {
    const { client, clock, calls, setMode } = await setup({ timeoutMs: 300 });
    for (let i = 0; i < DEFAULT_FAILURE_THRESHOLD; i += 1) await client.search(REQUEST);
    clock.now += DEFAULT_COOLDOWN_MS;
    setMode('hang');
    const probe = client.search(REQUEST);
    const others = await Promise.all([client.search(REQUEST), client.search(REQUEST)]);
    expect(others.map((outcome) => outcome.fallbackReason)).toEqual(['circuit_open', 'circuit_open']);
    expect((await probe).fallbackReason).toBe('timeout');
    expect(calls()).toBe(DEFAULT_FAILURE_THRESHOLD + 1);
  });

  it('a success resets the count: failures must be consecutive', async () => {
    const { client, setMode } = await setup();
    await client.search(REQUEST);
    await client.search(REQUEST);
    setMode('ok');
    await client.search(REQUEST);
    setMode('fail');
    await client.search(REQUEST);
    await client.search(REQUEST);
    expect(client.circuit()).toEqual({ state: 'closed', consecutiveFailures: 2 });
  });

  it('opens at once for Retry-After on a 429, beyond the default cool-down', async () => {
    const { client, clock, calls, setMode } = await setup();
    setMode('limit');
    expect((await client.search(REQUEST)).fallbackReason).toBe('rate_limited');
    expect(client.circuit()).toMatchObject({ state: 'open', retryAt: clock.now + 120_000 });
    clock.now += DEFAULT_COOLDOWN_MS;
    expect((await client.search(REQUEST)).fallbackReason).toBe('circuit_open');
    setMode('ok');
    clock.now += 120_000 - DEFAULT_COOLDOWN_MS;
    expect((await client.search(REQUEST)).source).toBe('cloud');
    expect(calls()).toBe(2);
  });

  it('counts configuration errors too, so a misconfigured router stops paying the round trip', async () => {
    server = await startServer((_req, res) => sendJson(res, 401, { title: 'Unauthorized', status: 401 }));
    const events: FallbackEvent[] = [];
    const client = createCatalogSearchClient({ baseUrl: server.baseUrl, token: 'expired', onFallback: (e) => events.push(e) });
    for (let i = 0; i < 5; i += 1) await client.search(REQUEST);
    expect(server.seen).toHaveLength(DEFAULT_FAILURE_THRESHOLD);
    expect(events.map((event) => event.reason)).toEqual([
      'unauthorized',
      'unauthorized',
      'unauthorized',
      'circuit_open',
      'circuit_open',
    ]);
  });

  it('a caller abort during the probe frees the probe slot', async () => {
    const { client, clock, calls, setMode } = await setup({ timeoutMs: 5000 });
    for (let i = 0; i < DEFAULT_FAILURE_THRESHOLD; i += 1) await client.search(REQUEST);
    clock.now += DEFAULT_COOLDOWN_MS;
    setMode('hang');
    const controller = new AbortController();
    const probe = client.search(REQUEST, { signal: controller.signal });
    while (calls() < DEFAULT_FAILURE_THRESHOLD + 1) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    await expect(probe).rejects.toThrow('aborted');
    setMode('ok');
    expect((await client.search(REQUEST)).source).toBe('cloud');
    expect(calls()).toBe(DEFAULT_FAILURE_THRESHOLD + 2);
  });

  it('with fallback: false an open circuit rejects with CircuitOpenError', async () => {
    const { client } = await setup({ fallback: false });
    for (let i = 0; i < DEFAULT_FAILURE_THRESHOLD; i += 1) {
      await expect(client.search(REQUEST)).rejects.toBeInstanceOf(InternalServerError);
    }
    await expect(client.search(REQUEST)).rejects.toBeInstanceOf(CircuitOpenError);
  });

  it('breaker: false calls the cloud on every search', async () => {
    const { client, calls } = await setup({ breaker: false });
    for (let i = 0; i < 5; i += 1) await client.search(REQUEST);
    expect(calls()).toBe(5);
    expect(client.circuit().state).toBe('closed');
  });
});
