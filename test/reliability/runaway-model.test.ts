// A model that never stops (the JSON-mode whitespace loop) or sends 10 MB (issue #12): every search is
// still answered within its deadline + 150 ms, /healthz within 50 ms (p95; the maximum is printed), and
// SIGTERM drains and exits 0. Each bound is scaled by how much the machine stretched CPU work in the
// same run (test/helpers/machine-slowdown.ts), so a busy host does not fail it (issue 47).
// Before the answer limits, the whitespace loop stalled /healthz for 4.2 s and a 10 MB answer took
// RSS to 1.9 GB and made the process ignore SIGTERM.
import { afterAll, describe, expect, it } from 'vitest';
import { startModelDouble, type ModelDouble } from './model-double.js';
import { paced, percentile, round, rssMb, sleep, timedSearch, type Timed } from './load.js';
import { report, startService, stopAll } from './scenario.js';
import { probeSlowdown } from '../helpers/machine-slowdown.js';
import { testToken } from '../helpers/tokens.js';

const doubles: ModelDouble[] = [];
afterAll(async () => {
  await stopAll();
  await Promise.all(doubles.map((double) => double.stop()));
});

const DEADLINE_MS = 2_000;
const tools = Array.from({ length: 40 }, (_, at) => ({
  toolKey: `srv:tool_${at}`,
  toolName: `tool_${at}`,
  serverName: 'Server',
  description: `Creates, lists and exports invoice record number ${at}.`,
}));

/** /healthz timings, one probe every `everyMs` until stopped. */
function probeHealth(url: string, everyMs = 50) {
  const timings: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(5_000) }).catch(() => undefined);
      await response?.arrayBuffer();
      timings.push(response?.ok ? performance.now() - started : Number.POSITIVE_INFINITY);
      await sleep(everyMs);
    }
  })();
  return async () => {
    running = false;
    await loop;
    return timings;
  };
}

describe.each([
  ['endless-whitespace', 'a model streaming whitespace forever'],
  ['huge-answer', 'a model sending 10 MB'],
])('runaway model: %s', (script, title) => {
  it(`${title}: searches answered by the deadline + 150 ms, /healthz within 50 ms, SIGTERM drains and exits 0`, async () => {
    const double = await startModelDouble(script);
    doubles.push(double);
    // Ten searches are in flight at once while the model holds each to the deadline: above the default
    // per-project limit, which is not what this scenario is about.
    const service = await startService({
      LLM_BASE_URL: double.baseURL,
      LLM_MODEL: 'test-model',
      SEARCH_DEADLINE_MS: String(DEADLINE_MS),
      MAX_IN_FLIGHT_PER_PROJECT: '32',
      EMBEDDINGS: 'off', // the semantic stage is not what this scenario is about
    });
    const token = testToken({ projectId: 'runaway-project' });
    await paced(200, 1_000, (at) => timedSearch(service.url, token, { query: [`warm up ${at}`], tools }));
    const slowdown = await probeSlowdown();
    const stopProbe = probeHealth(service.url);
    // Distinct queries, so that every search makes its own model call (none is shared or cached).
    const searches = await paced(200, 10_000, (at) =>
      timedSearch(service.url, token, { query: [`export invoice ${at}`], tools }),
    );
    const health = await stopProbe();
    const machine = slowdown.stop();
    const peakRss = rssMb(service.child.pid!);

    // SIGTERM with searches in flight: they are answered, then the process exits 0.
    const inFlight: Promise<Timed>[] = Array.from({ length: 5 }, (_, at) =>
      timedSearch(service.url, token, { query: [`drain ${at}`], tools }),
    );
    await sleep(100);
    const exit = service.stop(15_000);
    const drained = await Promise.all(inFlight);
    const code = await exit;

    const latencies = searches.map((r) => r.ms);
    report(`runaway model (${script})`, {
      searches: searches.length,
      statuses: [...new Set(searches.map((r) => r.status))],
      searchP50: round(percentile(latencies, 50)),
      searchMax: round(Math.max(...latencies)),
      healthProbes: health.length,
      healthP95: round(percentile(health, 95)),
      healthMax: round(Math.max(...health)),
      machineSlowdown: { median: round(machine.median), max: round(machine.max) },
      rssMb: round(peakRss),
      drained: drained.map((r) => r.status),
      exitCode: code,
    });
    // The bounds of a quiet machine, stretched as the machine stretched CPU work meanwhile (median for
    // the p95, the largest for the maxima): a busy host (load 4 once took a probe to 429 ms) is not a
    // failure, a stall of the service's own (4.2 s before the answer limits) still is.
    expect(searches.every((r) => r.status === 200)).toBe(true);
    expect(Math.max(...latencies)).toBeLessThanOrEqual(DEADLINE_MS + 150 * machine.max);
    // p95 is the bound; the maximum only detects hangs (before the limits: 3.1 s).
    expect(percentile(health, 95)).toBeLessThanOrEqual(50 * machine.median);
    expect(Math.max(...health)).toBeLessThanOrEqual(250 * machine.max);
    expect(drained.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(code).toBe(0);
  });
});
