// No search stalls another (issue #47), on a busy host: a CPU burner runs beside the service
// throughout, and a small tenant's p95 in windows with another project's load is compared with its p95
// in the windows without it (interleaved, in this run, beside the same burner); the target, 3×, is
// asserted for each. Each load is admitted by its project's share (the default work and byte budgets),
// and its rankings, costly by src/lexical/ranking-cost.ts's estimate, run in the ranking thread
// (src/lexical/ranking-thread.ts), off the event loop:
// - heavy: maximum-size searches (16 sub-queries over 5,000 tools, 4.5 MB) every 500 ms;
// - vocabulary: searches whose tools and requests are all never-seen words, back to back;
// - japanese: 16 × 2,000 random Japanese characters over one tool, back to back (~210 ms of CPU each
//   where English of the same size takes ~19 ms).
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { burnCpu, type CpuBurner } from './cpu-burner.js';
import { heavyBody } from './heavy-sender.js';
import { paced, percentile, round, sleep, timedSearch, uniqueTools, type Timed } from './load.js';
import { report, startService, stopAll } from './scenario.js';
import { testToken } from '../helpers/tokens.js';

afterAll(() => stopAll());

let burner: CpuBurner;
beforeEach(() => {
  burner = burnCpu(2);
});
afterEach(() => burner.stop());

// One every 100 ms: on this 2-core machine at load 10–16 (other work beside the burner), one every
// 25 ms was more than the service could answer even with no other project, and the quiet p95 measured
// the small tenant's own queue.
const smallBody = { query: ['create an invoice record'], tools: uniqueTools(20, 'small') };

const statuses = (rs: { status: number }[]) =>
  rs.reduce<Record<number, number>>((n, r) => ({ ...n, [r.status]: (n[r.status] ?? 0) + 1 }), {});
const p = (rs: Timed[], at: number) =>
  round(
    percentile(
      rs.map((r) => r.ms),
      at,
    ),
  );

// The attacker sends for ON_MS, then rests OFF_MS, CYCLES times; the small tenant searches throughout.
// Its searches sent in the last ON_MS - SETTLE_MS of a window with the attacker are "loaded", those sent
// in the last OFF_MS - QUIET_SETTLE_MS of a window without are "quiet" (the settling times: the other's
// answers still in flight as a window turns). Interleaved, so that the host's own load, which drifts within a minute on
// a shared machine, weighs on both alike.
const ON_MS = 3_000;
const OFF_MS = 4_000;
const SETTLE_MS = 1_000;
/** A heavy search admitted at the end of a window is answered up to ~2 s later at load 15. */
const QUIET_SETTLE_MS = 2_000;
const CYCLES = 4;
/**
 * A small search during which this process (the measuring client) was itself not run for this long is left
 * out of both windows: it measures the host, not the service. At load 12–16 the client took up to ~300 ms to
 * read answers the service had already sent, mostly in the windows with the attacker (whose service and
 * sender then use the cores), where a client on another host would not have waited.
 */
const CLIENT_STALL_MS = 50;
/** Start, warm-up and the cycles take ~60 s at load 15; the service's start alone up to 20 s at load 22. */
const TEST_TIMEOUT_MS = 240_000;

/** Runs test/reliability/attacker.ts as another project; resolves with its results when it exits. */
function attack(url: string, kind: string, intervalMs: number, startAt: number): Promise<Timed[]> {
  const attacker = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      new URL('./attacker.ts', import.meta.url).pathname,
      url,
      testToken({ projectId: `${kind}-project` }),
      kind,
      String(intervalMs),
      String(startAt),
      String(ON_MS),
      String(OFF_MS),
      String(CYCLES),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve) => {
    let output = '';
    attacker.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    attacker.once('exit', () => resolve(JSON.parse(output || '[]') as Timed[]));
  });
}

/** Records when this process's own event loop did not run for over CLIENT_STALL_MS, until stopped. */
function watchClientStalls() {
  const stalls: { from: number; to: number }[] = [];
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    if (now - last > CLIENT_STALL_MS) stalls.push({ from: last, to: now });
    last = now;
  }, 5);
  return {
    /** Whether the client stalled while the search sent at `sentAt` (performance.now()) for `ms` was under way. */
    stalledDuring: (sentAt: number, ms: number) =>
      stalls.some((stall) => stall.to > sentAt && stall.from < sentAt + ms),
    stop: () => clearInterval(timer),
  };
}

/** The small tenant's p95 in the windows without `kind`'s load and with it; returns the figures it prints. */
async function smallBeside(kind: 'heavy' | 'vocabulary' | 'japanese', intervalMs: number) {
  const service = await startService({ EMBEDDINGS: 'off' });
  const small = testToken({ projectId: 'small-project' });
  await paced(50, 1_000, () => timedSearch(service.url, small, smallBody));
  if (kind === 'heavy') {
    // Its list analysed once (the steady state: the heavy project sends the same list again and again),
    // then its work budget refills.
    await timedSearch(service.url, testToken({ projectId: 'heavy-project' }), heavyBody(), 60_000);
    await sleep(8_000);
  }
  // The attacker's process starts (tsx) well before its first window.
  const startAt = Date.now() + 4_000;
  const attackerDone = attack(service.url, kind, intervalMs, startAt);
  const quiet: Timed[] = [];
  const loaded: Timed[] = [];
  const sent: { sentAt: number; result: Timed; window: Timed[] }[] = [];
  await sleep(startAt - Date.now());
  const cycleMs = ON_MS + OFF_MS;
  const client = watchClientStalls();
  await paced(100, CYCLES * cycleMs, async () => {
    const at = (Date.now() - startAt) % cycleMs;
    const sentAt = performance.now();
    const result = await timedSearch(service.url, small, smallBody);
    if (at >= SETTLE_MS && at < ON_MS) sent.push({ sentAt, result, window: loaded });
    else if (at >= ON_MS + QUIET_SETTLE_MS) sent.push({ sentAt, result, window: quiet });
  });
  client.stop();
  const leftOut = { quiet: 0, loaded: 0 };
  for (const { sentAt, result, window } of sent) {
    if (!client.stalledDuring(sentAt, result.ms)) window.push(result);
    else leftOut[window === loaded ? 'loaded' : 'quiet'] += 1;
  }
  const attacker = await attackerDone;
  const figures = {
    load: burner.load(),
    quietP50: p(quiet, 50),
    quietP95: p(quiet, 95),
    loadedP50: p(loaded, 50),
    loadedP95: p(loaded, 95),
    ratio: round(p(loaded, 95) / p(quiet, 95), 2),
    clientStallsLeftOut: leftOut,
    smallStatuses: statuses([...quiet, ...loaded]),
    attackerStatuses: statuses(attacker),
    attackerP50: p(attacker, 50),
  };
  report(`search stalls: ${kind}`, figures);
  expect(sent.every(({ result }) => result.status === 200)).toBe(true);
  return figures;
}

/**
 * Each scenario may be measured a second time: a pause of the host that spares this client (so the filter
 * above keeps its searches) spoils one window's p95 alone. In 30 measurements (main and this build, load
 * 8–15) it did three times, in quiet windows (quiet p95 589 ms beside 96 ms loaded; 229 beside 161; 157
 * beside 60); in a loaded window it fails a build that holds. A load above 3× twice in a row fails. First
 * measurements above 3×: this build 2 of 12, main 15 of 18 (docs/performance.md#a-thread-for-long-rankings);
 * beside the heavy tenant at load 5–13.5, 6 of 11 while its resent list was parsed, 0 of 11 since it is not
 * (docs/performance.md#a-list-sent-again-as-the-same-bytes-not-parsed).
 */
const MEASURED = { timeout: TEST_TIMEOUT_MS, retry: 1 };

describe("no search stalls another's on a busy host", () => {
  it(
    "keeps the small tenant's p95 within 3× quiet beside a heavy tenant's admitted 4.5 MB searches",
    MEASURED,
    async () => {
      const figures = await smallBeside('heavy', 500);
      expect(figures.ratio).toBeLessThanOrEqual(3);
    },
  );

  it("keeps the small tenant's p95 within 3× quiet beside a flood of never-seen words", MEASURED, async () => {
    const figures = await smallBeside('vocabulary', 100);
    expect(figures.ratio).toBeLessThanOrEqual(3);
  });

  it(
    "keeps the small tenant's p95 within 3× quiet beside a loop of large Japanese requests, and refuses the loop once its CPU used its share",
    MEASURED,
    async () => {
      const figures = await smallBeside('japanese', 100);
      expect(figures.ratio).toBeLessThanOrEqual(3);
      expect(figures.attackerStatuses[429]).toBeGreaterThan(0);
    },
  );
});
