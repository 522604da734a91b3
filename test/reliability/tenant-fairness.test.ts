// A heavy tenant must not slow everyone else (issue #12): one project sends maximum-size searches
// (16 sub-queries over 5,000 tools, ~4.5 MB) at ~2 per second while another sends small searches. The
// small project's p95 under that load must stay within 3× its quiet p95, both measured in this run.
import { afterAll, describe, expect, it } from 'vitest';
import { paced, percentile, round, timedSearch, uniqueTools } from './load.js';
import { hs256Token, report, startService, stopAll } from './service-process.js';

afterAll(() => stopAll());

const heavyBody = JSON.stringify({
  query: Array.from({ length: 16 }, (_, at) => `find the ${['invoice', 'ticket', 'contact', 'report'][at % 4]} record number ${at} and export it`),
  tools: uniqueTools(5_000, 'heavy', 700),
  maxResults: 30,
});
const smallBody = { query: ['create an invoice record'], tools: uniqueTools(20, 'small') };

describe('fairness: a heavy tenant vs another tenant\'s small searches', () => {
  it('keeps the small tenant\'s p95 within 3× its quiet p95', async () => {
    const service = await startService({ LOG_LEVEL: 'warn' });
    const heavy = hs256Token({ projectId: 'heavy-project' });
    const small = hs256Token({ projectId: 'small-project' });
    const smallSearch = () => timedSearch(service.url, small, smallBody);

    await paced(50, 1_000, smallSearch); // warm-up
    const quiet = await paced(50, 5_000, smallSearch);
    const heavyResults: Promise<{ status: number; ms: number }[]> = paced(500, 10_000, () => timedSearch(service.url, heavy, heavyBody, 30_000));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const loaded = await paced(50, 8_000, smallSearch);
    const heavyDone = await heavyResults;

    const quietP95 = percentile(quiet.map((r) => r.ms), 95);
    const loadedP95 = percentile(loaded.map((r) => r.ms), 95);
    const statuses = (rs: { status: number }[]) => rs.reduce<Record<number, number>>((n, r) => ({ ...n, [r.status]: (n[r.status] ?? 0) + 1 }), {});
    const figures = {
      quietP50: round(percentile(quiet.map((r) => r.ms), 50)),
      quietP95: round(quietP95),
      loadedP50: round(percentile(loaded.map((r) => r.ms), 50)),
      loadedP95: round(loadedP95),
      ratio: round(loadedP95 / quietP95, 2),
      smallStatuses: statuses(loaded),
      heavyStatuses: statuses(heavyDone),
      heavyP50: round(percentile(heavyDone.map((r) => r.ms), 50)),
    };
    report('tenant fairness', figures);
    expect(loaded.every((r) => r.status === 200)).toBe(true);
    expect(loadedP95 / quietP95).toBeLessThanOrEqual(3);
  });
});
