// The metric of associations waiting for the hold or the deployment's rate (docs/operations.md):
// aged projects teach an association over HTTP on learning's own clock; the metrics show it waiting
// (and for how long) until its turn, then none; without shared learning the series are absent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleTools } from '../fixtures/tools.js';
import { routerOf, TAUGHT_TOOL, UNMATCHED_REQUESTS } from '../routes/feedback-client.js';
import { startApp, testConfig, type RunningApp } from '../helpers/app.js';

const HOUR = 3_600_000;
/** Noon UTC: the first reports and those 25 h later are on two dates. */
let now = Date.UTC(2026, 10, 2, 12);
const WAITING = 'catalog_search_shared_associations_waiting';
const WAIT_SECONDS = 'catalog_search_shared_associations_wait_seconds';

function series(text: string, name: string): number | undefined {
  const line = text.split('\n').find((entry) => entry.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
}
const scrape = async (target: RunningApp) => (await fetch(`${target.url}/metrics`)).text();

let server: RunningApp;
let off: RunningApp;
beforeAll(async () => {
  const config = testConfig();
  const { admission } = config.feedback.shared;
  [server, off] = await Promise.all([
    startApp(
      {
        ...config,
        // Every threshold exactly 6 projects; the history rule, the hold and the rate at their defaults.
        feedback: {
          ...config.feedback,
          shared: { enabled: true, minProjects: 5, thresholdSpread: 1, maxAssociations: 10_000, admission },
        },
      },
      { learningClock: () => now },
    ),
    startApp(config),
  ]);
});
afterAll(() => Promise.all([server.close(), off.close()]));

/** Each of six projects searches the request and reports the taught tool for it. */
async function teach() {
  for (let project = 0; project < 6; project += 1) {
    const router = routerOf(server.url, `waiting-${project}`);
    const { meta } = await router.search(UNMATCHED_REQUESTS[0]!, sampleTools);
    const { status } = await router.report([{ requestId: meta.requestId, toolKey: TAUGHT_TOOL, outcome: 'succeeded' }]);
    expect(status).toBe(202);
  }
}

describe('shared associations waiting (metrics)', () => {
  it('counts an association from its threshold to its turn, and how long the last one waits', async () => {
    expect(series(await scrape(server), WAITING)).toBe(0);
    // Day 0: each project's first report (its history); 25 h later it counts.
    await teach();
    now += 25 * HOUR;
    expect(series(await scrape(server), WAITING)).toBe(0);
    await teach();
    // A search reads the model: the associations that met their threshold wait for the hold (an hour).
    await routerOf(server.url, 'waiting-fresh').search(UNMATCHED_REQUESTS[0]!, sampleTools);
    const text = await scrape(server);
    expect(series(text, WAITING)).toBeGreaterThan(0);
    const seconds = series(text, WAIT_SECONDS)!;
    expect(seconds).toBeGreaterThanOrEqual(3600 - 60);
    // The rate (1,000 an hour) gives each a turn 3.6 s after the one before.
    expect(seconds).toBeLessThanOrEqual(3600 + 3.6 * series(text, WAITING)!);
    // Their turns have come: none waits, whether or not a search has brought them in yet.
    now += 2 * HOUR;
    const later = await scrape(server);
    expect(series(later, WAITING)).toBe(0);
    expect(series(later, WAIT_SECONDS)).toBe(0);
    expect(
      (await routerOf(server.url, 'waiting-fresh').search(UNMATCHED_REQUESTS[0]!, sampleTools)).meta.learning,
    ).toBe('shared');
  });

  it('is absent without shared learning', async () => {
    const text = await scrape(off);
    expect(series(text, WAITING)).toBeUndefined();
    expect(series(text, WAIT_SECONDS)).toBeUndefined();
  });
});
