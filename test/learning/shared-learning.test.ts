// Shared learning across projects (LEARNING_SHARED) over loopback HTTP, in process: an association
// reaches another project only once k distinct projects reported it; each project counts once; an
// opted-out project never counts; DELETE withdraws; off (the default) changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchResponse } from '@catalog-search/core';
import { startApp, testConfig, type RunningApp } from '../helpers/app.js';
import { sampleTools } from '../fixtures/tools.js';
import { testToken } from '../helpers/tokens.js';
import { routerOf, TAUGHT_TOOL, UNMATCHED_REQUESTS } from '../routes/feedback-client.js';

const K = 3;
/** Every association's threshold exactly K (k = K − 1, no spread), so the K-th project is the one that tips it. */
const EXACTLY_K = { minProjects: K - 1, thresholdSpread: 1 };
const TEST = ['jot the squad retro takeaways'];
let server: RunningApp;
let off: RunningApp;

function sharedConfig(enabled: boolean) {
  const config = testConfig();
  return { ...config, feedback: { ...config.feedback, shared: { enabled, ...EXACTLY_K, maxAssociations: 10_000 } } };
}

beforeAll(async () => {
  [server, off] = await Promise.all([startApp(sharedConfig(true)), startApp(sharedConfig(false))]);
});
afterAll(() => Promise.all([server.close(), off.close()]));

/** A project searches each request and reports the taught tool by the search's requestId. */
async function teach(url: string, projectId: string, requests = UNMATCHED_REQUESTS.slice(0, 2), outcome = 'succeeded') {
  const router = routerOf(url, projectId);
  for (const query of requests) {
    const { meta } = await router.search(query, sampleTools);
    const { status } = await router.report([{ requestId: meta.requestId, toolKey: TAUGHT_TOOL, outcome }]);
    expect(status).toBe(202);
  }
  return router;
}

/** The whole answer but the per-request id: what must not change. */
const answerOf = (response: SearchResponse) =>
  JSON.stringify({ ...response, meta: { ...response.meta, requestId: '' } });

describe('shared learning (LEARNING_SHARED, k = 3)', () => {
  it('k − 1 projects change no other project’s answer; the k-th does, and the answer says so', async () => {
    const fresh = routerOf(server.url, 'k-fresh');
    const before = await fresh.search(TEST, sampleTools);
    expect(before.results.map((result) => result.toolKey)).not.toContain(TAUGHT_TOOL);
    for (let project = 1; project < K; project += 1) await teach(server.url, `k-teacher-${project}`);
    // One project reporting again and again still counts once.
    for (let round = 0; round < 3; round += 1) await teach(server.url, 'k-teacher-1', UNMATCHED_REQUESTS);
    expect(answerOf(await fresh.search(TEST, sampleTools))).toBe(answerOf(before));

    await teach(server.url, `k-teacher-${K}`);
    const after = await fresh.search(TEST, sampleTools);
    expect(after.results[0]!.toolKey).toBe(TAUGHT_TOOL);
    expect(after.results[0]!.explanation).toMatch(/used for similar requests in other projects/);
    expect(after.meta.learning).toBe('shared');
    // A request none of it matches is answered as before, with no meta.learning.
    const unrelated = ['list the slack channels'];
    const lexical = await routerOf(off.url, 'k-fresh').search(unrelated, sampleTools);
    expect(answerOf(await fresh.search(unrelated, sampleTools))).toBe(answerOf(lexical));

    // DELETE by one of the k: the association falls below k and is gone for everyone.
    expect(await routerOf(server.url, 'k-teacher-2').forget()).toBe(204);
    expect(answerOf(await fresh.search(TEST, sampleTools))).toBe(answerOf(before));
    for (const project of [1, 3]) await routerOf(server.url, `k-teacher-${project}`).forget();
  });

  it('a request’s words that no tool of the list has take nothing from what k projects taught', async () => {
    for (let project = 1; project <= K; project += 1) await teach(server.url, `words-teacher-${project}`);
    const fresh = routerOf(server.url, 'words-fresh');
    const raisedBy = async (query: string) => {
      const { results } = await fresh.search([query], sampleTools);
      return results.find((result) => result.toolKey === TAUGHT_TOOL)?.relevance ?? 0;
    };
    // The next tests start from an empty shared model, whatever this one finds.
    try {
      const taught = await raisedBy('jot the squad retro takeaways');
      expect(taught).toBeGreaterThan(0);
      // Names and values (no tool of the list has them) leave the raise as it was...
      expect(await raisedBy('jot the squad retro takeaways for zorblax qwixtle')).toBe(taught);
      // ...while words of the list that nobody taught for it ask for something else, and lessen it.
      expect(await raisedBy('jot the squad retro takeaways slack channel')).toBeLessThan(taught);
    } finally {
      for (let project = 1; project <= K; project += 1) await routerOf(server.url, `words-teacher-${project}`).forget();
    }
  });

  it('a tool k projects used for unlike requests is raised for requests on its server only', async () => {
    // Each project's request shares no word with the others': no (term, tool) association reaches k,
    // only the tool's use does (a common step: a login or token tool many requests need first).
    const unlike = [['capture zebra brainstorm'], ['record quokka minutes'], ['store walrus musings']];
    const fresh = routerOf(server.url, 'step-fresh');
    const onServer = ['search notion pages for the roadmap'];
    const elsewhere = ['fetch the url'];
    const before = await fresh.search(onServer, sampleTools);
    const beforeElsewhere = await fresh.search(elsewhere, sampleTools);
    const placeBefore = before.results.findIndex((result) => result.toolKey === TAUGHT_TOOL);
    for (let project = 1; project < K; project += 1) await teach(server.url, `step-${project}`, [unlike[project - 1]!]);
    expect(answerOf(await fresh.search(onServer, sampleTools))).toBe(answerOf(before));

    await teach(server.url, `step-${K}`, [unlike[K - 1]!]);
    const after = await fresh.search(onServer, sampleTools);
    const place = after.results.findIndex((result) => result.toolKey === TAUGHT_TOOL);
    expect(place).toBeGreaterThanOrEqual(0);
    if (placeBefore >= 0) expect(place).toBeLessThanOrEqual(placeBefore);
    expect(after.results[place]!.explanation).toMatch(/often used with its server's tools in other projects/);
    expect(after.results[place]!.relevance).toBeGreaterThan(
      placeBefore >= 0 ? before.results[placeBefore]!.relevance : 0,
    );
    expect(after.meta.learning).toBe('shared');
    // A request whose best matches are on another server is answered as before.
    expect(answerOf(await fresh.search(elsewhere, sampleTools))).toBe(answerOf(beforeElsewhere));

    expect(await routerOf(server.url, 'step-2').forget()).toBe(204);
    expect(answerOf(await fresh.search(onServer, sampleTools))).toBe(answerOf(before));
    for (const project of [1, 3]) await routerOf(server.url, `step-${project}`).forget();
  });

  it('a project that opted out (token claim shareLearning: false) never moves the shared model', async () => {
    const fresh = routerOf(server.url, 'opt-fresh');
    const before = await fresh.search(TEST, sampleTools);
    for (let project = 1; project < K; project += 1) await teach(server.url, `opt-teacher-${project}`);
    // The K-th project reports with an opting-out token: its own learning works, nothing is shared.
    const headers = {
      authorization: `Bearer ${testToken({ projectId: 'opt-out', claims: { shareLearning: false } })}`,
      'content-type': 'application/json',
    };
    for (const query of UNMATCHED_REQUESTS) {
      const search = await fetch(`${server.url}/v1/catalog/search`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ query, tools: sampleTools }),
      });
      const { meta } = (await search.json()) as SearchResponse;
      const report = await fetch(`${server.url}/v1/catalog/feedback`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ events: [{ requestId: meta.requestId, toolKey: TAUGHT_TOOL, outcome: 'succeeded' }] }),
      });
      expect(report.status).toBe(202);
    }
    expect(answerOf(await fresh.search(TEST, sampleTools))).toBe(answerOf(before));
    // Its own searches are raised by its own reports.
    const own = await fetch(`${server.url}/v1/catalog/search`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ query: TEST, tools: sampleTools }),
    });
    expect(((await own.json()) as SearchResponse).meta.learning).toBe('raised');
    for (let project = 1; project < K; project += 1) await routerOf(server.url, `opt-teacher-${project}`).forget();
  });

  it('a shareLearning claim other than true (a string "false", 0, null…) opts out; true shares', async () => {
    const fresh = routerOf(server.url, 'odd-fresh');
    const before = await fresh.search(TEST, sampleTools);
    for (let project = 1; project < K; project += 1) await teach(server.url, `odd-teacher-${project}`);
    // A router that writes its opt-out as a string (or another non-boolean) meant to opt out. Each such
    // project would be the K-th: it searches and reports by requestId, as teach() does.
    const odd: unknown[] = ['false', 'no', 'true', 0, null, {}];
    const headersOf = (projectId: string, shareLearning: unknown) => ({
      authorization: `Bearer ${testToken({ projectId, claims: { shareLearning } })}`,
      'content-type': 'application/json',
    });
    for (const [index, shareLearning] of odd.entries()) {
      const headers = headersOf(`odd-claim-${index}`, shareLearning);
      for (const query of UNMATCHED_REQUESTS.slice(0, 2)) {
        const search = await fetch(`${server.url}/v1/catalog/search`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ query, tools: sampleTools }),
        });
        expect(search.status).toBe(200);
        const { meta } = (await search.json()) as SearchResponse;
        const events = [{ requestId: meta.requestId, toolKey: TAUGHT_TOOL, outcome: 'succeeded' }];
        const report = await fetch(`${server.url}/v1/catalog/feedback`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ events }),
        });
        expect(report.status).toBe(202);
      }
      // Its own learning works as for any project.
      const own = await fetch(`${server.url}/v1/catalog/search`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ query: TEST, tools: sampleTools }),
      });
      expect(((await own.json()) as SearchResponse).meta.learning).toBe('raised');
    }
    expect(answerOf(await fresh.search(TEST, sampleTools))).toBe(answerOf(before));

    // The JSON boolean true shares, like no claim: it completes k.
    const headers = headersOf('odd-true', true);
    for (const query of UNMATCHED_REQUESTS.slice(0, 2)) {
      const search = await fetch(`${server.url}/v1/catalog/search`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ query, tools: sampleTools }),
      });
      const { meta } = (await search.json()) as SearchResponse;
      await fetch(`${server.url}/v1/catalog/feedback`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ events: [{ requestId: meta.requestId, toolKey: TAUGHT_TOOL, outcome: 'succeeded' }] }),
      });
    }
    expect((await fresh.search(TEST, sampleTools)).meta.learning).toBe('shared');
    const forget = (projectId: string) =>
      fetch(`${server.url}/v1/catalog/feedback`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${testToken({ projectId })}` },
      });
    for (const projectId of ['odd-true', ...odd.map((_, index) => `odd-claim-${index}`)]) await forget(projectId);
    for (let project = 1; project < K; project += 1) await routerOf(server.url, `odd-teacher-${project}`).forget();
  });

  it('failures shared by k projects take back what k successes gave', async () => {
    const fresh = routerOf(server.url, 'neg-fresh');
    const before = await fresh.search(TEST, sampleTools);
    for (let project = 1; project <= K; project += 1) await teach(server.url, `neg-good-${project}`);
    expect((await fresh.search(TEST, sampleTools)).results[0]!.toolKey).toBe(TAUGHT_TOOL);
    for (let project = 1; project <= K; project += 1)
      await teach(server.url, `neg-bad-${project}`, undefined, 'failed');
    expect(answerOf(await fresh.search(TEST, sampleTools))).toBe(answerOf(before));
    for (const prefix of ['neg-good', 'neg-bad'])
      for (let project = 1; project <= K; project += 1) await routerOf(server.url, `${prefix}-${project}`).forget();
  });

  it('LEARNING_SHARED off (the default): k projects teaching change no other project’s answer', async () => {
    const fresh = routerOf(off.url, 'off-fresh');
    const before = await fresh.search(TEST, sampleTools);
    for (let project = 1; project <= K + 1; project += 1) await teach(off.url, `off-teacher-${project}`);
    expect(answerOf(await fresh.search(TEST, sampleTools))).toBe(answerOf(before));
    expect(before.meta).not.toHaveProperty('learning');
  });

  it('fuzzed report bodies never answer 5xx', async () => {
    let seed = 7;
    const random = () => (seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32;
    const pick = <T>(values: readonly T[]) => values[Math.floor(random() * values.length)]!;
    const values: unknown[] = [
      null,
      0,
      -1,
      1e308,
      '',
      'x'.repeat(5000),
      '\u0000\ud800',
      [],
      {},
      [[]],
      { __proto__: { a: 1 } },
      TAUGHT_TOOL,
      'succeeded',
      'failed',
      ['a', 'b'],
      true,
    ];
    const headers = { authorization: `Bearer ${testToken({ projectId: 'fuzz' })}`, 'content-type': 'application/json' };
    const { meta } = await routerOf(server.url, 'fuzz').search(TEST, sampleTools);
    const statuses = new Set<number>();
    for (let i = 0; i < 300; i += 1) {
      const event: Record<string, unknown> = {};
      for (const field of ['toolKey', 'outcome', 'requestId', 'query', 'context', 'extra']) {
        if (random() < 0.6) event[field] = pick([...values, meta.requestId]);
      }
      const body =
        random() < 0.1
          ? pick(['{', 'null', '[]', '{"events":{}}', '{"events":[1,2]}', JSON.stringify({ events: 'x' })])
          : JSON.stringify({ events: Array.from({ length: 1 + Math.floor(random() * 4) }, () => event) });
      const response = await fetch(`${server.url}/v1/catalog/feedback`, { method: 'POST', headers, body });
      statuses.add(response.status);
      await response.arrayBuffer();
    }
    expect([...statuses].filter((status) => status >= 500)).toEqual([]);
    expect(statuses.has(202)).toBe(true);
  });
});
