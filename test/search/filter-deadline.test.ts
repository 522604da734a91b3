// A search filtered by `filter.tools` keeps its deadline while other projects' rules run to their
// budget in the one filter thread (issue 36). Before: a search with a plain `gh:*` waited for the
// thread behind every other project's turn, up to 8 s with one attacking project and 122 s with 16, on
// a 4 s deadline. The service runs as its own process with forced major GCs (force-gc.mjs), so that a
// wait whose timer the collector could take would show.
import type { SearchResponse, ToolInfo } from '@catalog-search/core';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_SECRET } from '../helpers/app.js';
import { searchAs } from '../helpers/search.js';
import { startServiceProcess, type ServiceProcess } from '../helpers/service-process.js';

const DEADLINE_MS = 1000;
/** What a search may take past its deadline: the answer's own work after the wait ends. */
const MARGIN_MS = 150;
const FORCE_GC = ['--expose-gc', '--import', fileURLToPath(new URL('../helpers/force-gc.mjs', import.meta.url))];

/**
 * The filter attack adapted to the per-tool bound (test/reliability/filter-attack.test.ts): one rule of
 * 1,802 RE2 instructions on 100 tools of 270 + 270 characters, which runs until the 2 s budget.
 */
const toBudget = {
  query: ['find the matching tool for this request'],
  tools: Array.from({ length: 100 }, (_, at) => ({
    toolKey: `s${at}:${'a'.repeat(264)}`,
    toolName: 'a'.repeat(270),
    serverName: 'Attack server',
  })),
  filter: { tools: ['/(?:(?:a{1,30}){1,30})[^a]/'] },
};

const victimTools: ToolInfo[] = Array.from({ length: 20 }, (_, i) => ({
  toolKey: `${i % 2 === 0 ? 'gh' : 'jira'}:create_issue_${i}`,
  toolName: `create_issue_${i}`,
  serverName: i % 2 === 0 ? 'GitHub' : 'Jira',
  description: 'Create an issue in the tracker.',
}));

/** `projects` attacking projects sending `toBudget` back to back until `stop` aborts. */
function attack(service: ServiceProcess, projects: number, stop: AbortSignal): Promise<number[]> {
  return Promise.all(
    Array.from({ length: projects }, async (_, p) => {
      let sent = 0;
      while (!stop.aborted) {
        const answer = await searchAs(service, toBudget, { projectId: `attacker-${p}`, signal: stop }).catch(
          () => undefined,
        );
        sent += 1;
        // Refused (its project's queue is full): retry soon, as a hostile sender would.
        if (answer?.status === 429) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return sent;
    }),
  );
}

let victimRequests = 0;

/**
 * The victim's search with `filter`: its answer, the time the client saw, and the time the service took
 * by its own clock (Fastify's responseTime, from the request's arrival: its `request completed` line).
 */
async function timed(service: ServiceProcess, filter: string[]) {
  const requestId = `victim-${(victimRequests += 1)}`;
  const started = performance.now();
  const answer = await searchAs<SearchResponse & { code?: string }>(
    service,
    { query: ['create an issue'], tools: victimTools, filter: { tools: filter } },
    { projectId: 'victim', signal: AbortSignal.timeout(60_000), headers: { 'x-request-id': requestId } },
  );
  const ms = performance.now() - started;
  const completed = await waitFor(() =>
    service.logs.find((entry) => entry.requestId === requestId && entry.msg === 'request completed'),
  );
  return { ...answer, ms, serviceMs: completed.responseTime as number };
}

/** The longest the service's event loop was held since the last call (prom-client's lag max, reset by each scrape). */
async function loopDelayMs(service: ServiceProcess): Promise<number> {
  const text = await (await fetch(`${service.url}/metrics`, { signal: AbortSignal.timeout(60_000) })).text();
  const max = /^nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(text);
  if (!max) throw new Error('no nodejs_eventloop_lag_max_seconds in /metrics');
  return Number(max[1]) * 1000;
}

/** `find()`'s first defined value: a log line is read from the child's stdout a moment after the answer. */
async function waitFor<T>(find: () => T | undefined): Promise<T> {
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('filter.tools rules keep every search deadline', () => {
  let service: ServiceProcess;
  beforeAll(async () => {
    service = await startServiceProcess(
      {
        AUTH_JWT_SECRET: TEST_SECRET,
        SEARCH_DEADLINE_MS: String(DEADLINE_MS),
        // The attackers' runs are not refused for their cost here: the thread stays busy.
        RATE_LIMIT_PER_MINUTE: '0',
        RATE_LIMIT_WORK_PER_MINUTE: '0',
        EMBEDDINGS: 'off',
        // Info: each request's `request completed` line carries the service's own time (responseTime).
        LOG_LEVEL: 'info',
        // On the API port: its event-loop delay (nodejs_eventloop_lag_max_seconds) bounds a timer's lateness.
        METRICS_ENABLED: 'true',
      },
      { nodeOptions: FORCE_GC },
    );
    // Warm, before any attack: the first filter of a process compiles the matcher's code, and the
    // filter thread starts (through tsx, from the sources: longer than the deadline, so the first
    // searches that need it may be refused).
    expect((await timed(service, ['gh:*'])).status).toBe(200);
    let status = 0;
    for (let attempt = 0; attempt < 20 && status !== 200; attempt += 1)
      status = (await timed(service, ['/^gh:/'])).status;
    expect(status).toBe(200);
  }, 90_000);
  afterAll(() => service?.stop());

  it.each([1, 16])(
    'with %i attacking projects: a plain glob answers at once, rules for the thread by the deadline',
    async (projects) => {
      const stop = new AbortController();
      const attackers = attack(service, projects, stop.signal);
      try {
        // Let the attack fill the thread and its queue.
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        // [client ms, service ms, the service's longest event-loop delay ms] of the glob, then of the rule, and its status.
        const figures: number[][] = [];
        for (let round = 0; round < 3; round += 1) {
          await loopDelayMs(service);
          const glob = await timed(service, ['gh:*']);
          const globDelayMs = await loopDelayMs(service);
          expect(glob.status).toBe(200);
          expect(glob.body.results.length).toBeGreaterThan(0);
          expect(glob.body.results.every((result) => result.toolKey.startsWith('gh:'))).toBe(true);
          // Globs this small run without the thread, not waiting their turn there: answered before the
          // deadline by the service's clock, unless its event loop itself was held that long.
          expect(glob.serviceMs).toBeLessThan(DEADLINE_MS + globDelayMs);
          // A regular expression goes to the thread: run if its turn comes in time (a 200), else
          // refused when the wait reaches the deadline. Either by the deadline, by the service's clock
          // (from the request's arrival), late by no more than its event loop was held: the deadline's
          // timer fires once the loop is free. Not the client's clock: on a busy machine that adds
          // the time the request and the answer wait to be read by two busy processes (issue 47:
          // 2,097 ms seen from the client at load 10-15).
          const regex = await timed(service, ['/^gh:/']);
          const regexDelayMs = await loopDelayMs(service);
          expect([200, 429]).toContain(regex.status);
          if (regex.status === 429) expect(regex.body.code).toBe('RATE_LIMITED');
          expect(regex.serviceMs).toBeLessThan(DEADLINE_MS + MARGIN_MS + regexDelayMs);
          figures.push(
            [glob.ms, glob.serviceMs, globDelayMs, regex.ms, regex.serviceMs, regexDelayMs, regex.status].map(
              Math.round,
            ),
          );
        }
        console.log(
          `${projects} attacking: [glob client ms, service ms, loop delay ms, regex client ms, service ms, loop delay ms, status]`,
          JSON.stringify(figures),
        );
        const gcs = service.logs.filter((entry) => entry.msg === 'forced gc').map((entry) => entry.count as number);
        expect(Math.max(0, ...gcs)).toBeGreaterThan(10);
      } finally {
        stop.abort();
        await attackers;
      }
    },
    120_000,
  );
});
