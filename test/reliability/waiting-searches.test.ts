// Waiting on a model costs no CPU (issue #22): 20 concurrent searches of one project while the model
// hangs must all be answered 200 (the lexical ranking, meta.degraded "timeout") at the deadline.
// Before the fix, the in-flight cap (8) counted them while they waited: 8 answered, 12 refused 429.
import { afterAll, describe, expect, it } from 'vitest';
import { startModelDouble, type ModelDouble } from './model-double.js';
import { percentile, round } from './load.js';
import { report, startService, stopAll } from './scenario.js';
import { testToken } from '../helpers/tokens.js';

const doubles: ModelDouble[] = [];
afterAll(async () => {
  await stopAll();
  await Promise.all(doubles.map((double) => double.stop()));
});

const DEADLINE_MS = 1_500;
const tools = Array.from({ length: 40 }, (_, at) => ({
  toolKey: `srv:tool_${at}`,
  toolName: `tool_${at}`,
  serverName: 'Server',
  description: `Creates, lists and exports invoice record number ${at}.`,
}));

describe('in-flight limits count work, not waiting', () => {
  it('answers 20 concurrent searches of one project 200 while the model hangs', async () => {
    const double = await startModelDouble('hang');
    doubles.push(double);
    // The default limits (MAX_IN_FLIGHT_PER_PROJECT 8): the scenario is about them.
    const service = await startService({
      LLM_BASE_URL: double.baseURL,
      LLM_MODEL: 'test-model',
      SEARCH_DEADLINE_MS: String(DEADLINE_MS),
      EMBEDDINGS: 'off',
    });
    const token = testToken({ projectId: 'busy-router' });
    const answers = await Promise.all(
      Array.from({ length: 20 }, async (_, at) => {
        const started = performance.now();
        const response = await fetch(`${service.url}/v1/catalog/search`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          // Distinct queries: every search makes its own model call (none is shared or cached).
          body: JSON.stringify({ query: [`export invoice ${at}`], tools }),
          signal: AbortSignal.timeout(15_000),
        });
        const body = (await response.json()) as { meta?: { degraded?: string } };
        return { status: response.status, degraded: body.meta?.degraded, ms: performance.now() - started };
      }),
    );
    const statuses = answers.reduce<Record<number, number>>(
      (n, r) => ({ ...n, [r.status]: (n[r.status] ?? 0) + 1 }),
      {},
    );
    report('waiting searches (hanging model)', {
      statuses,
      ms: answers.map((a) => Math.round(a.ms)).sort((a, b) => a - b),
      p50: round(
        percentile(
          answers.map((a) => a.ms),
          50,
        ),
      ),
      max: round(Math.max(...answers.map((a) => a.ms))),
    });
    expect(statuses).toEqual({ 200: 20 });
    expect(answers.every((a) => a.degraded === 'timeout')).toBe(true);
  });
});
