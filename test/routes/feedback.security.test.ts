// Hostile use of the feedback routes: a project can only teach itself, fuzzed bodies never get a 5xx,
// and a flood of reports is bounded in memory.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryBudget } from '../../src/memory/exports.js';
import { startApp, testConfig, type RunningApp } from '../helpers/app.js';
import { sampleTools } from '../fixtures/tools.js';
import { routerOf, TAUGHT_TOOL, UNMATCHED_REQUESTS } from './feedback-client.js';
import { testToken } from '../helpers/tokens.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20261125);
const MAX_EVENTS = 50;
let server: RunningApp;
const memory = new MemoryBudget({ maxBytes: 64 * 1024 * 1024, projectShare: 0.5 });
beforeAll(async () => {
  server = await startApp(testConfig({ feedback: { ...testConfig().feedback, maxEvents: MAX_EVENTS } }), { memory });
});
afterAll(() => server.close());

const TEST = ['jot the squad retro takeaways'];

describe('a project can only teach itself', () => {
  it("another project's searches, requestIds and DELETE do not reach what a project taught", async () => {
    const teacher = routerOf(server.url, 'teacher');
    const stranger = routerOf(server.url, 'stranger');
    const before = await stranger.search(TEST, sampleTools);
    const ids: string[] = [];
    for (const query of UNMATCHED_REQUESTS) {
      const { meta } = await teacher.search(query, sampleTools);
      ids.push(meta.requestId);
      await teacher.report([{ requestId: meta.requestId, toolKey: TAUGHT_TOOL, outcome: 'succeeded' }]);
    }
    expect((await teacher.search(TEST, sampleTools)).results[0]!.toolKey).toBe(TAUGHT_TOOL);

    const strangers = await stranger.search(TEST, sampleTools);
    expect(JSON.stringify(strangers.results)).toBe(JSON.stringify(before.results));
    expect(strangers.meta).not.toHaveProperty('learning');
    // The teacher's requestIds mean nothing to the stranger.
    const { body } = await stranger.report(
      ids.map((requestId) => ({ requestId, toolKey: 'slack:post_message', outcome: 'succeeded' })),
    );
    expect(body.accepted).toBe(0);
    expect(await stranger.forget()).toBe(204);
    expect((await teacher.search(TEST, sampleTools)).results[0]!.toolKey).toBe(TAUGHT_TOOL);
    // The X-Project-Id check applies as on search: a token of one project cannot name another.
    const crossed = await fetch(`${server.url}/v1/catalog/feedback`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${testToken({ projectId: 'stranger' })}`, 'x-project-id': 'teacher' },
    });
    expect(crossed.status).toBe(403);
    expect((await teacher.search(TEST, sampleTools)).meta.learning).toBe('raised');
  });
});

describe('fuzzed report bodies', () => {
  const event = fc.record(
    {
      requestId: fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.string({ minLength: 100, maxLength: 300 })),
      query: fc.oneof(
        fc.string(),
        fc.array(fc.oneof(fc.string(), fc.integer(), fc.constant(null)), { maxLength: 20 }),
        fc.object(),
        fc.string({ unit: 'binary' }),
      ),
      context: fc.oneof(fc.string(), fc.integer(), fc.array(fc.string())),
      toolKey: fc.oneof(
        fc.string(),
        fc.constant(''),
        fc.string({ minLength: 500, maxLength: 600 }),
        fc.integer(),
        fc.constant('__proto__'),
      ),
      outcome: fc.oneof(fc.constantFrom('selected', 'succeeded', 'failed'), fc.string(), fc.integer()),
      __proto__: fc.object(),
    },
    { requiredKeys: [] },
  );
  const body = fc.oneof(
    fc.record({ events: fc.array(fc.oneof(event, fc.anything()), { maxLength: 120 }) }, { requiredKeys: [] }),
    fc.jsonValue(),
    fc.record({ events: fc.array(event, { minLength: 1, maxLength: 5 }), extra: fc.anything() }),
  );

  it('never answer 5xx; 202 answers account for every event', async () => {
    await fc.assert(
      fc.asyncProperty(body, async (value) => {
        const text = JSON.stringify(value) ?? 'null';
        const response = await fetch(`${server.url}/v1/catalog/feedback`, {
          method: 'POST',
          headers: { authorization: `Bearer ${testToken({ projectId: 'fuzz' })}`, 'content-type': 'application/json' },
          body: text,
        });
        expect(response.status).toBeLessThan(500);
        const answer = (await response.json()) as { accepted?: number; ignored?: unknown[]; code?: string };
        if (response.status === 202) {
          expect(answer.accepted! + answer.ignored!.length).toBe((value as { events: unknown[] }).events.length);
        } else {
          expect(answer.code).toBeTypeOf('string');
        }
      }),
      { seed: SEED, numRuns: 150 },
    );
    // The fuzzed project's searches still answer.
    await expect(routerOf(server.url, 'fuzz').search(['read a file'], sampleTools)).resolves.toHaveProperty('results');
  }, 60_000);
});

describe('a flood of reports is bounded', () => {
  it(`keeps ${MAX_EVENTS} reports' worth of a project in memory, however many it sends`, async () => {
    const flooder = routerOf(server.url, 'flooder');
    const longWords = (seed: number) =>
      Array.from({ length: 40 }, (_, i) => `word${seed}x${i}${'q'.repeat(20)}`).join(' ');
    const sizes: number[] = [];
    for (let batch = 0; batch < 30; batch += 1) {
      const events = Array.from({ length: 100 }, (_, i) => ({
        query: longWords(batch * 100 + i),
        toolKey: `flood:tool_${batch}_${i}`,
        outcome: 'succeeded',
      }));
      expect((await flooder.report(events)).body.accepted).toBe(100);
      sizes.push(memory.projectBytes('flooder'));
    }
    // 3,000 reports of ~2 KB each were sent; the project holds at most its 50-report log (~180 KB as
    // counted) and a model of at most 2 × 50 folded reports of 32 terms (3,200 words at 320 bytes, as V8
    // holds them: ~1.1 MB).
    expect(Math.max(...sizes)).toBeLessThan(1_400 * 1024);
    expect(sizes.at(-1)!).toBeLessThanOrEqual(Math.max(...sizes.slice(0, 5)) * 1.5);
    // Its searches still run, and quickly enough for the test's timeout.
    await expect(flooder.search(['word1x1'], sampleTools)).resolves.toHaveProperty('results');
  });
});
