import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, testConfig, type RunningApp } from '../helpers/app.js';
import { sampleTools } from '../fixtures/tools.js';
import { testToken } from '../helpers/tokens.js';
import { routerOf, TAUGHT_TOOL, UNMATCHED_REQUESTS } from './feedback-client.js';

let server: RunningApp;
beforeAll(async () => {
  server = await startApp(testConfig());
});
afterAll(() => server.close());

describe('learning from use over loopback HTTP (search → execute → report)', () => {
  it('a project that never reported ranks exactly as before, with no meta.learning', async () => {
    const router = routerOf(server.url, 'never-reported');
    const first = await router.search(['open an issue about the failing build'], sampleTools);
    const second = await router.search(['open an issue about the failing build'], sampleTools);
    expect(JSON.stringify(second.results)).toBe(JSON.stringify(first.results));
    expect(first.meta).not.toHaveProperty('learning');
  });

  it('reports by requestId raise the tool for a similar request, say so, and DELETE forgets them', async () => {
    const router = routerOf(server.url, 'teaches');
    const test = ['jot the squad retro takeaways'];
    const before = await router.search(test, sampleTools);
    expect(before.results.map((result) => result.toolKey)).not.toContain(TAUGHT_TOOL);
    expect(before.meta).not.toHaveProperty('learning');

    for (const query of UNMATCHED_REQUESTS.slice(0, 3)) {
      const { meta } = await router.search(query, sampleTools);
      const { status, body } = await router.report([
        { requestId: meta.requestId, toolKey: TAUGHT_TOOL, outcome: 'succeeded' },
      ]);
      expect(status).toBe(202);
      expect(body).toEqual({ accepted: 1, ignored: [] });
    }

    const after = await router.search(test, sampleTools);
    expect(after.results[0]!.toolKey).toBe(TAUGHT_TOOL);
    expect(after.results[0]!.explanation).toMatch(/raised by past use: used for 3 similar requests/);
    expect(after.meta.learning).toBe('raised');
    // A request the reports do not match is answered as before, and says learning changed nothing.
    const unrelated = await router.search(['list the slack channels'], sampleTools);
    const baseline = await routerOf(server.url, 'never-reported-2').search(['list the slack channels'], sampleTools);
    expect(JSON.stringify(unrelated.results)).toBe(JSON.stringify(baseline.results));
    expect(unrelated.meta.learning).toBe('unchanged');

    expect(await router.forget()).toBe(204);
    const forgotten = await router.search(test, sampleTools);
    expect(JSON.stringify(forgotten.results)).toBe(JSON.stringify(before.results));
    expect(forgotten.meta).not.toHaveProperty('learning');
  });

  it('a report may carry the query instead of a requestId, on the seed path too', async () => {
    const router = routerOf(server.url, 'by-query', '/catalog');
    const events = UNMATCHED_REQUESTS.map((query) => ({ query, toolKey: TAUGHT_TOOL, outcome: 'succeeded' }));
    expect(await router.report(events)).toEqual({ status: 202, body: { accepted: 4, ignored: [] } });
    const after = await router.search(['squad retro takeaways'], sampleTools);
    expect(after.results[0]!.toolKey).toBe(TAUGHT_TOOL);
    expect(await router.forget()).toBe(204);
  });

  it('failed reports take back what successes taught', async () => {
    const router = routerOf(server.url, 'fails');
    const succeeded = UNMATCHED_REQUESTS.map((query) => ({ query, toolKey: TAUGHT_TOOL, outcome: 'succeeded' }));
    await router.report(succeeded);
    expect((await router.search(['squad retro takeaways'], sampleTools)).results[0]!.toolKey).toBe(TAUGHT_TOOL);
    await router.report(succeeded.map((event) => ({ ...event, outcome: 'failed' })));
    const after = await router.search(['squad retro takeaways'], sampleTools);
    expect(after.results.map((result) => result.toolKey)).not.toContain(TAUGHT_TOOL);
  });

  // Generated clients send `content-type: application/json` on every call, with or without a body.
  it.each([
    ['application/json, no content-length', 'application/json', undefined],
    ['application/json, content-length: 0', 'application/json', ''],
    ['text/plain, content-length: 0', 'text/plain', ''],
  ])('a bodiless DELETE with %s forgets (204), on /v1 and the seed path', async (_case, contentType, body) => {
    for (const path of ['/v1/catalog/feedback', '/catalog/feedback']) {
      const response = await fetch(`${server.url}${path}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${testToken({ projectId: 'bodiless' })}`, 'content-type': contentType },
        ...(body === undefined ? {} : { body }),
      });
      expect(response.status, path).toBe(204);
    }
    // A route that takes a body still says it is missing.
    const search = await fetch(`${server.url}/v1/catalog/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${testToken({ projectId: 'bodiless' })}`, 'content-type': 'application/json' },
    });
    expect(search.status).toBe(400);
    expect(((await search.json()) as { detail: string }).detail).toMatch(/body is empty/);
  });
});
