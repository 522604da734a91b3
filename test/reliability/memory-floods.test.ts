// Memory stays bounded whatever tenants send (issue #12): the cache budget (CACHE_MEMORY_MB) holds
// under a flood of huge unique descriptions and under many projects with distinct 1,000-tool lists,
// in LLM mode (against the model double) and lexical mode. Before the byte budget, the first flood
// took RSS from 148 MB to 3.2 GB in 60 s and 100 projects reached 2.4 GB.
// RSS must stay under the process's baseline (measured here after a warm-up) + the cache budget +
// WORKING_MB for the searches in flight (their bodies, parsed tool lists and rankings) and the
// garbage collector's slack.
import { afterAll, describe, expect, it } from 'vitest';
import { startModelDouble, type ModelDouble } from './model-double.js';
import { paced, percentile, round, rssMb, sleep, timedSearch, uniqueTools, watchRss, type Timed } from './load.js';
import { report, startService, stopAll } from './scenario.js';
import { testToken } from '../helpers/tokens.js';

const doubles: ModelDouble[] = [];
afterAll(async () => {
  await stopAll();
  await Promise.all(doubles.map((double) => double.stop()));
});

const CACHE_MB = 128; // the default CACHE_MEMORY_MB
const WORKING_MB = 160;
// 15 s in CI; RELIABILITY_FLOOD_SECONDS=60 gives the issue's minute of load.
const DURATION_MS = 1000 * Number(process.env.RELIABILITY_FLOOD_SECONDS ?? 15);
const HEAP_MB = 384;

async function floodService(llm: boolean) {
  let model: Record<string, string> = {};
  if (llm) {
    const double = await startModelDouble('grade');
    doubles.push(double);
    model = { LLM_BASE_URL: double.baseURL, LLM_MODEL: 'test-model' };
  }
  // The work and byte budgets would refuse most of these floods (they are far above a fair share);
  // they are off here so that every search reaches the caches this scenario is about.
  // The heap limit Node gives itself in the shipped container (it sizes the heap from the cgroup's memory
  // limit, about half of it: 384 MB of 768 Mi). Without one, V8 lets garbage grow much further before a
  // full collection (peaks of 436 MB here with a 64 MB budget, back to 257 MB by the end). The semantic
  // stage is off: its vectors have a budget of their own (EMBEDDINGS_CACHE_MB), its encoder would compete
  // for the CPU.
  return startService(
    {
      ...model,
      CACHE_MEMORY_MB: String(CACHE_MB),
      RATE_LIMIT_MB_PER_MINUTE: '0',
      RATE_LIMIT_WORK_PER_MINUTE: '0',
      EMBEDDINGS: 'off',
    },
    [`--max-old-space-size=${HEAP_MB}`],
  );
}

async function baselineRss(url: string, pid: number): Promise<number> {
  const token = testToken({ projectId: 'warm-up' });
  await paced(100, 1_500, (at) =>
    timedSearch(url, token, { query: [`warm up invoice ${at}`], tools: uniqueTools(50, 'warm') }),
  );
  await sleep(500);
  return rssMb(pid);
}

const statusCounts = (results: { status: number }[]) =>
  results.reduce<Record<number, number>>((counts, r) => ({ ...counts, [r.status]: (counts[r.status] ?? 0) + 1 }), {});

/** Prints the scenario's figures and checks that every search was answered and RSS stayed within bounds. */
function expectWithinBudget(
  scenario: string,
  results: Timed[],
  baseline: number,
  rss: { peakMb: number; lastMb: number },
) {
  const boundMb = baseline + CACHE_MB + WORKING_MB;
  report(`memory: ${scenario}`, {
    searches: results.length,
    statuses: statusCounts(results),
    p95Ms: round(
      percentile(
        results.map((r) => r.ms),
        95,
      ),
    ),
    baselineMb: round(baseline),
    peakMb: round(rss.peakMb),
    lastMb: round(rss.lastMb),
    boundMb: round(boundMb),
  });
  expect(results.every((r) => r.status === 200)).toBe(true);
  expect(rss.peakMb).toBeLessThanOrEqual(boundMb);
}

/** 25 tools whose 180 KB descriptions are new with every search. */
function hugeDescriptions(at: number) {
  return uniqueTools(25, `flood${at}`, 180 * 1024);
}

describe.each([
  ['LLM', true],
  ['lexical', false],
])('memory (%s mode)', (mode, llm) => {
  it(
    'a flood of unique 180 KB descriptions (25 tools, ~5 searches/s) stays within the budget',
    async () => {
      const service = await floodService(llm);
      const baseline = await baselineRss(service.url, service.child.pid!);
      const token = testToken({ projectId: 'flooding-project' });
      const watch = watchRss(service.child.pid!);
      const results = await paced(200, DURATION_MS, (at) =>
        timedSearch(service.url, token, { query: [`export invoice record ${at}`], tools: hugeDescriptions(at) }),
      );
      expectWithinBudget(`180 KB-description flood (${mode})`, results, baseline, watch.stop());
      await service.stop();
    },
    DURATION_MS + 45_000,
  );

  it(
    '100 projects with distinct 1,000-tool lists stay within the budget',
    async () => {
      const service = await floodService(llm);
      const baseline = await baselineRss(service.url, service.child.pid!);
      const projects = Array.from({ length: 100 }, (_, at) => ({
        token: testToken({ projectId: `project-${at}` }),
        body: JSON.stringify({ query: ['export the invoice record'], tools: uniqueTools(1_000, `p${at}`) }),
      }));
      const watch = watchRss(service.child.pid!);
      const results = await paced(125, DURATION_MS, (at) =>
        timedSearch(service.url, projects[at % 100]!.token, projects[at % 100]!.body),
      );
      expectWithinBudget(`100 projects × 1,000 distinct tools (${mode})`, results, baseline, watch.stop());
      await service.stop();
    },
    DURATION_MS + 45_000,
  );
});

/** `count` made-up words never seen before (letters only, so each is a term of its own). */
function newWords(count: number, seed: number): string {
  let state = seed * 2_654_435_761;
  const word = () =>
    Array.from({ length: 7 }, () => {
      state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
      return String.fromCharCode(97 + (state % 26));
    }).join('');
  return Array.from({ length: count }, word).join(' ');
}

/** Bytes each cache of the budget holds, and the budget, from /metrics. */
async function cacheBytes(url: string): Promise<{ heldMb: number; budgetMb: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const sum = (name: string) =>
    text
      .split('\n')
      .filter((line) => line.startsWith(name))
      .reduce((total, line) => total + Number(line.split(' ').pop()), 0) /
    2 ** 20;
  return { heldMb: sum('catalog_search_cache_bytes{'), budgetMb: sum('catalog_search_cache_budget_bytes') };
}

describe('memory (learning)', () => {
  it('a flood of accepted reports (300 projects, 900 bodies of never-seen words, heap capped at 256 MB) stays within the budget', async () => {
    // No Redis: every report is learned in process. The heap cap is what a replica with a 512 Mi limit
    // gets; before learning counted against the budget, this flood ended in a V8 out-of-memory.
    const service = await startService(
      {
        CACHE_MEMORY_MB: String(CACHE_MB),
        RATE_LIMIT_MB_PER_MINUTE: '0',
        RATE_LIMIT_WORK_PER_MINUTE: '0',
        EMBEDDINGS: 'off',
        METRICS_ENABLED: 'true',
        LEARNING_SHARED: 'true',
        LEARNING_SECRET: 'flood-test-learning-secret-of-32-bytes-or-more',
      },
      ['--max-old-space-size=256'],
    );
    const baseline = await baselineRss(service.url, service.child.pid!);
    const watch = watchRss(service.child.pid!);
    // 100 events a body, each a request of 40 new words (~320 characters): 3.6 million new words in all.
    const body = (at: number) =>
      JSON.stringify({
        events: Array.from({ length: 100 }, (_, event) => ({
          query: newWords(40, at * 100 + event),
          toolKey: `flood:tool_${event % 20}`,
          outcome: 'succeeded',
        })),
      });
    const statuses: number[] = [];
    let next = 0;
    const sender = async () => {
      while (next < 900) {
        const at = next++;
        const response = await fetch(`${service.url}/v1/catalog/feedback`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${testToken({ projectId: `flood-${at % 300}` })}`,
            'content-type': 'application/json',
          },
          body: body(at),
          signal: AbortSignal.timeout(30_000),
        }).catch(() => undefined);
        await response?.arrayBuffer();
        statuses.push(response?.status ?? 0);
      }
    };
    await Promise.all([sender(), sender(), sender(), sender()]);
    const rss = watch.stop();
    const alive = (await fetch(`${service.url}/healthz`).catch(() => undefined))?.status;
    const held = await cacheBytes(service.url);
    const boundMb = baseline + CACHE_MB + WORKING_MB;
    report('memory: feedback flood', {
      bodies: statuses.length,
      statuses: statusCounts(statuses.map((status) => ({ status }))),
      baselineMb: round(baseline),
      peakMb: round(rss.peakMb),
      lastMb: round(rss.lastMb),
      boundMb: round(boundMb),
      heldMb: round(held.heldMb),
      budgetMb: round(held.budgetMb),
    });
    expect(alive).toBe(200);
    expect(statuses.every((status) => status === 202)).toBe(true);
    expect(held.heldMb).toBeLessThanOrEqual(held.budgetMb);
    expect(rss.peakMb).toBeLessThanOrEqual(boundMb);
    await service.stop();
  }, 240_000);
});
