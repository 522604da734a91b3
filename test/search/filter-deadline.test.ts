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

async function timed(service: ServiceProcess, filter: string[]) {
  const started = performance.now();
  const answer = await searchAs<SearchResponse & { code?: string }>(
    service,
    { query: ['create an issue'], tools: victimTools, filter: { tools: filter } },
    { projectId: 'victim', signal: AbortSignal.timeout(60_000) },
  );
  return { ...answer, ms: performance.now() - started };
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
        LOG_LEVEL: 'warn',
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
        const figures: Array<[number, number, number]> = [];
        for (let round = 0; round < 3; round += 1) {
          const glob = await timed(service, ['gh:*']);
          expect(glob.status).toBe(200);
          expect(glob.body.results.length).toBeGreaterThan(0);
          expect(glob.body.results.every((result) => result.toolKey.startsWith('gh:'))).toBe(true);
          // Globs this small run without the thread, not waiting their turn there.
          expect(glob.ms).toBeLessThan(DEADLINE_MS + MARGIN_MS);
          // A regular expression goes to the thread: run if its turn comes in time (a 200), else
          // refused when the wait reaches the deadline. Either by the deadline, seen from the client
          // (with room for HTTP on a busy machine with forced collections).
          const regex = await timed(service, ['/^gh:/']);
          expect([200, 429]).toContain(regex.status);
          if (regex.status === 429) expect(regex.body.code).toBe('RATE_LIMITED');
          expect(regex.ms).toBeLessThan(DEADLINE_MS + MARGIN_MS + 850);
          figures.push([Math.round(glob.ms), Math.round(regex.ms), regex.status]);
        }
        console.log(`${projects} attacking: [glob ms, regex ms, regex status]`, JSON.stringify(figures));
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
