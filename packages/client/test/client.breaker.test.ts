import { afterEach, describe, expect, it } from 'vitest';
import {
  CircuitOpenError,
  createCatalogSearchClient,
  DEFAULT_COOLDOWN_MS,
  DEFAULT_FAILURE_THRESHOLD,
  DEFAULT_PROBE_INTERVAL_MS,
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
async function setup(options: Partial<CatalogSearchClientOptions> = {}, probeIntervalMs = 0) {
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
    // Background probes off unless a test is about them: these tests pin the cool-down's half-open probe.
    breaker: { now: () => clock.now, probeIntervalMs },
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
    const client = createCatalogSearchClient({
      baseUrl: server.baseUrl,
      token: 'expired',
      onFallback: (e) => events.push(e),
    });
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

describe('background probes while the circuit is open', () => {
  /**
   * Waits until the server has seen `count` calls (a background probe is not awaited by any search),
   * or `waitMs` (short where the test expects no call: a loopback call arrives in a few ms).
   */
  const seenCalls = async (calls: () => number, count: number, waitMs = 5000) => {
    const until = Date.now() + waitMs;
    while (calls() < count && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 5));
    // Let the probe's answer be handled.
    await new Promise((resolve) => setTimeout(resolve, 20));
    return calls();
  };

  it('probe the cloud every probeIntervalMs without any search waiting; a success closes the circuit long before the cool-down', async () => {
    const { client, clock, calls, setMode } = await setup({}, DEFAULT_PROBE_INTERVAL_MS);
    for (let i = 0; i < DEFAULT_FAILURE_THRESHOLD; i += 1) await client.search(REQUEST);
    // Within the interval: no probe.
    clock.now += DEFAULT_PROBE_INTERVAL_MS - 1;
    expect((await client.search(REQUEST)).fallbackReason).toBe('circuit_open');
    expect(await seenCalls(calls, DEFAULT_FAILURE_THRESHOLD + 1, 200)).toBe(DEFAULT_FAILURE_THRESHOLD);

    // One interval after opening: this search is answered locally at once and probes in the background (still failing).
    clock.now += 1;
    expect((await client.search(REQUEST)).fallbackReason).toBe('circuit_open');
    expect(await seenCalls(calls, DEFAULT_FAILURE_THRESHOLD + 1)).toBe(DEFAULT_FAILURE_THRESHOLD + 1);
    expect(client.circuit().state).toBe('open');
    // The failed probe did not extend the cool-down.
    expect(client.circuit().retryAt).toBe(1_000_000 + DEFAULT_COOLDOWN_MS);

    // The service is back: the next probe (one interval later) closes the circuit; the search after it is answered by the cloud.
    setMode('ok');
    expect((await client.search(REQUEST)).fallbackReason).toBe('circuit_open');
    expect(await seenCalls(calls, DEFAULT_FAILURE_THRESHOLD + 2, 200)).toBe(DEFAULT_FAILURE_THRESHOLD + 1);
    clock.now += DEFAULT_PROBE_INTERVAL_MS;
    expect((await client.search(REQUEST)).fallbackReason).toBe('circuit_open');
    expect(await seenCalls(calls, DEFAULT_FAILURE_THRESHOLD + 2)).toBe(DEFAULT_FAILURE_THRESHOLD + 2);
    expect(client.circuit()).toEqual({ state: 'closed', consecutiveFailures: 0 });
    expect((await client.search(REQUEST)).source).toBe('cloud');
  });

  it('keep one probe in flight while the cloud hangs, and none before a Retry-After ends', async () => {
    // The probe's timeout is long enough that a search waiting for it stands out on any machine.
    const { client, clock, calls, setMode } = await setup({ timeoutMs: 2_000 }, DEFAULT_PROBE_INTERVAL_MS);
    for (let i = 0; i < DEFAULT_FAILURE_THRESHOLD; i += 1) await client.search(REQUEST);
    setMode('hang');
    clock.now += DEFAULT_PROBE_INTERVAL_MS;
    const started = Date.now();
    await client.search(REQUEST);
    clock.now += DEFAULT_PROBE_INTERVAL_MS;
    const answered = await client.search(REQUEST);
    // Answered locally at once: waiting for the hanging probe would take its whole 2 s timeout; a busy
    // machine's slowness gets the rest (with a 300 ms probe, a fixed 250 ms left it only 50).
    expect(Date.now() - started).toBeLessThan(1_900);
    expect(answered.fallbackReason).toBe('circuit_open');
    expect(await seenCalls(calls, DEFAULT_FAILURE_THRESHOLD + 2, 200)).toBe(DEFAULT_FAILURE_THRESHOLD + 1);

    // The hanging probe times out (counted as a failure); then a 429 with Retry-After: 120 s holds every
    // probe back for that long.
    await expect
      .poll(() => client.circuit().consecutiveFailures, { timeout: 10_000, interval: 50 })
      .toBe(DEFAULT_FAILURE_THRESHOLD + 1);
    setMode('limit');
    clock.now += DEFAULT_PROBE_INTERVAL_MS;
    await client.search(REQUEST);
    expect(await seenCalls(calls, DEFAULT_FAILURE_THRESHOLD + 2)).toBe(DEFAULT_FAILURE_THRESHOLD + 2);
    setMode('ok');
    clock.now += 60_000;
    await client.search(REQUEST);
    expect(await seenCalls(calls, DEFAULT_FAILURE_THRESHOLD + 3, 200)).toBe(DEFAULT_FAILURE_THRESHOLD + 2);
    clock.now += 60_000;
    expect((await client.search(REQUEST)).source).toBe('cloud');
  });
});
