// One tenant must not buy another's CPU through `filter.tools` (issue #22). The attack: a 1.3 KB
// search with one tool whose name and key are 512 × `a` and five rules such as
// `/(?:(?:a{1,30}){1,30})[^a]/` (9,010 RE2 instructions, under the 10,000 cap), sent back to back
// from one and then four connections, within the request rate (600/min). Before the fix, matching
// held the event loop 0.6–0.9 s per request and the victim's p50 went from 6.8 ms to 729 ms (one
// connection) and 894 ms (four). The victim's p50 under attack must stay within 3× its quiet p50,
// both measured in this run (a ratio, so that a slow or busy machine does not fail it).
import { afterAll, describe, expect, it } from 'vitest';
import { paced, percentile, round, timedSearch, uniqueTools, type Timed } from './load.js';
import { report, startService, stopAll } from './scenario.js';
import { testToken } from '../helpers/tokens.js';

afterAll(() => stopAll());

const victimBody = { query: ['create an invoice record'], tools: uniqueTools(20, 'victim') };

const name = 'a'.repeat(512);
export const attackBody = JSON.stringify({
  query: ['find the matching tool for this request'],
  tools: [{ toolKey: name, toolName: name, serverName: 'Attack server' }],
  filter: { tools: ['[^a]', 'b', 'c', 'd', 'e'].map((tail) => `/(?:(?:a{1,30}){1,30})${tail}/`) },
});

/**
 * The attack adapted to the per-tool bound: one such rule (1,802 instructions) on 100 tools whose name
 * and key are 270 × `a` (~970,000 steps each, just under the bound). It is not refused before running:
 * it runs in the filter thread until the 2 s budget, and its time is charged to the attacker.
 */
const adaptedName = 'a'.repeat(270);
export const adaptedBody = JSON.stringify({
  query: ['find the matching tool for this request'],
  tools: Array.from({ length: 100 }, (_, at) => ({
    toolKey: `s${at}:${'a'.repeat(264)}`,
    toolName: adaptedName,
    serverName: 'Attack server',
  })),
  filter: { tools: ['/(?:(?:a{1,30}){1,30})[^a]/'] },
});

/** `connections` loops each sending `body` back to back until `until` (performance.now()). */
async function attack(
  url: string,
  token: string,
  connections: number,
  until: number,
  body = attackBody,
): Promise<Timed[]> {
  const results: Timed[] = [];
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < until) {
        const result = await timedSearch(url, token, body, 10_000);
        results.push(result);
        // A refused attacker retries at once, as a hostile one would; a short pause keeps a 429 loop
        // from flooding the measuring process itself.
        if (result.status === 429) await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }),
  );
  return results;
}

const statuses = (rs: Timed[]) =>
  rs.reduce<Record<number, number>>((n, r) => ({ ...n, [r.status]: (n[r.status] ?? 0) + 1 }), {});

describe('fairness: a filter.tools attack vs another tenant', () => {
  it("keeps the victim's p50 within 3× its quiet p50 with one and with four attacking connections (and the attack adapted to the bounds)", async () => {
    expect(attackBody.length).toBeGreaterThan(1_200);
    // The request rate of the run (600/min); the other limits are the defaults.
    const service = await startService({ LOG_LEVEL: 'warn', EMBEDDINGS: 'off', RATE_LIMIT_PER_MINUTE: '600' });
    const victim = testToken({ projectId: 'victim-project' });
    const victimSearch = () => timedSearch(service.url, victim, victimBody);

    await paced(50, 1_000, victimSearch); // warm-up
    const quiet = await paced(50, 4_000, victimSearch);
    const figures: Record<string, unknown> = {
      quietP50: round(
        percentile(
          quiet.map((r) => r.ms),
          50,
        ),
      ),
    };
    const ratios: number[] = [];
    const rounds = [
      { name: '1conn', connections: 1, body: attackBody },
      { name: '4conn', connections: 4, body: attackBody },
      { name: 'adapted4conn', connections: 4, body: adaptedBody },
    ];
    for (const { name, connections, body } of rounds) {
      // A fresh attacker project per round, so that each round starts with a full budget.
      const token = testToken({ projectId: `attacker-${name}` });
      const until = performance.now() + 6_000;
      const attacked = attack(service.url, token, connections, until, body);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const loaded = await paced(50, 5_500, victimSearch);
      const attackerResults = await attacked;
      const p50 = percentile(
        loaded.map((r) => r.ms),
        50,
      );
      ratios.push(p50 / (figures.quietP50 as number));
      figures[name] = {
        victimP50: round(p50),
        victimP95: round(
          percentile(
            loaded.map((r) => r.ms),
            95,
          ),
        ),
        ratio: round(ratios.at(-1)!, 2),
        victimStatuses: statuses(loaded),
        attackerStatuses: statuses(attackerResults),
      };
      expect(loaded.every((r) => r.status === 200)).toBe(true);
    }
    report('filter attack', figures);
    for (const ratio of ratios) expect(ratio).toBeLessThanOrEqual(3);
  });
});
