import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, testConfig, type RunningApp } from '../helpers/app.js';
import { searchAs } from '../helpers/search.js';
import { manyTools, sampleRequest, sampleTools } from '../fixtures/tools.js';

let server: RunningApp;
beforeAll(async () => {
  server = await startApp(
    testConfig({
      search: { ...testConfig().search, maxTools: 200, maxQueryChars: 100, maxContextChars: 300 },
      http: { ...testConfig().http, bodyLimitBytes: 256 * 1024 },
    }),
  );
});
afterAll(() => server.close());

/** The body as sent (malformed on purpose), to the seed path. */
const post = (body: string | Uint8Array, headers: Record<string, string> = {}) =>
  searchAs(server, body, { path: '/catalog/search', headers });

/** Every bad request must leave the server serving the next good one. */
async function expectStillServing() {
  const ok = await post(JSON.stringify({ query: ['read a file'], tools: sampleTools.slice(0, 5) }));
  expect(ok.status).toBe(200);
}

function expectProblem(response: Awaited<ReturnType<typeof post>>, status: number, code: string, field?: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const problem = response.body;
  expect(problem).toMatchObject({ status, code, requestId: response.headers.get('x-request-id') });
  expect(typeof problem.type).toBe('string');
  expect(typeof problem.title).toBe('string');
  expect(typeof problem.detail).toBe('string');
  if (field !== undefined) {
    expect(problem.errors.map((error: { field: string }) => error.field)).toContain(field);
    expect(problem.detail).toContain(field);
  }
  return problem;
}

const valid = { query: ['read a file'], tools: sampleTools.slice(0, 5) };

describe('bad input gets a documented 4xx problem+json, and the server keeps serving', () => {
  const cases: { name: string; body: unknown; status: number; code: string; field?: string }[] = [
    { name: 'query missing', body: { tools: valid.tools }, status: 400, code: 'INVALID_REQUEST', field: '/query' },
    {
      name: 'query is a string, not an array',
      body: { ...valid, query: 'read a file' },
      status: 400,
      code: 'INVALID_REQUEST',
      field: '/query',
    },
    { name: 'query is empty', body: { ...valid, query: [] }, status: 400, code: 'INVALID_REQUEST', field: '/query' },
    {
      name: 'a query item is empty',
      body: { ...valid, query: ['ok', ''] },
      status: 400,
      code: 'INVALID_REQUEST',
      field: '/query/1',
    },
    {
      name: 'more than 16 query items',
      body: { ...valid, query: Array(17).fill('x') },
      status: 400,
      code: 'INVALID_REQUEST',
      field: '/query',
    },
    {
      name: 'a query item longer than MAX_QUERY_CHARS',
      body: { ...valid, query: ['ok', 'x'.repeat(101)] },
      status: 400,
      code: 'INVALID_REQUEST',
      field: '/query/1',
    },
    {
      name: 'context longer than MAX_CONTEXT_CHARS',
      body: { ...valid, context: 'x'.repeat(301) },
      status: 400,
      code: 'INVALID_REQUEST',
      field: '/context',
    },
    {
      name: 'context of the wrong type',
      body: { ...valid, context: 42 },
      status: 400,
      code: 'INVALID_REQUEST',
      field: '/context',
    },
    { name: 'tools missing', body: { query: ['x'] }, status: 400, code: 'INVALID_REQUEST', field: '/tools' },
    {
      name: 'tools and servers both',
      body: { ...valid, servers: [] },
      status: 400,
      code: 'INVALID_REQUEST',
      field: '/servers',
    },
    {
      name: 'a server without serverId',
      body: { query: ['x'], servers: [{ tools: [] }] },
      status: 400,
      code: 'INVALID_REQUEST',
      field: '/servers/0/serverId',
    },
    {
      name: 'an unknown filter field',
      body: { ...valid, filter: { server: ['a'] } },
      status: 400,
      code: 'INVALID_REQUEST',
      field: '/filter/server',
    },
    {
      name: 'a filter.tools rule RE2 refuses',
      body: { ...valid, filter: { tools: ['ok', '/(a)\\1/'] } },
      status: 400,
      code: 'INVALID_REQUEST',
      field: '/filter/tools/1',
    },
    {
      name: 'filter.tools rules too large together',
      body: { ...valid, filter: { tools: Array.from({ length: 64 }, (_, i) => `/[a-z]{1,999}b${i}/`) } },
      status: 400,
      code: 'INVALID_REQUEST',
      field: '/filter/tools/4',
    },
    {
      name: 'a filter.tools glob with an unclosed brace',
      body: { ...valid, filter: { tools: ['ok', 'a{b'] } },
      status: 400,
      code: 'INVALID_REQUEST',
      field: '/filter/tools/1',
    },
    {
      name: 'minRelevance above 1',
      body: { ...valid, minRelevance: 1.5 },
      status: 400,
      code: 'INVALID_REQUEST',
      field: '/minRelevance',
    },
    {
      name: 'maxResults above 100',
      body: { ...valid, maxResults: 101 },
      status: 400,
      code: 'INVALID_REQUEST',
      field: '/maxResults',
    },
    {
      name: 'maxResults not an integer',
      body: { ...valid, maxResults: 2.5 },
      status: 400,
      code: 'INVALID_REQUEST',
      field: '/maxResults',
    },
    {
      name: 'an unknown top-level field',
      body: { ...valid, limit: 5 },
      status: 400,
      code: 'INVALID_REQUEST',
      field: '/limit',
    },
    { name: 'a JSON array instead of an object', body: [valid], status: 400, code: 'INVALID_REQUEST' },
    {
      name: 'more tools than MAX_TOOLS',
      body: { ...valid, tools: manyTools(201) },
      status: 413,
      code: 'TOO_MANY_TOOLS',
      field: '/tools',
    },
    {
      name: 'more tools than MAX_TOOLS across servers',
      body: {
        query: ['x'],
        servers: [
          { serverId: 'a', tools: manyTools(150) },
          { serverId: 'b', tools: manyTools(51) },
        ],
      },
      status: 413,
      code: 'TOO_MANY_TOOLS',
      field: '/servers',
    },
  ];

  for (const testCase of cases) {
    it(`${testCase.name} → ${testCase.status} ${testCase.code}`, async () => {
      expectProblem(await post(JSON.stringify(testCase.body)), testCase.status, testCase.code, testCase.field);
      await expectStillServing();
    });
  }

  it('logs a rejected request with its requestId and projectId, and no token', async () => {
    const response = await post(JSON.stringify({ ...valid, limit: 1 }), { 'x-request-id': 'rejected-1' });
    expect(response.status).toBe(400);
    const lines = server.logs.lines.filter((line) => line.requestId === 'rejected-1');
    expect(lines.find((line) => line.msg === 'request rejected')).toMatchObject({
      projectId: 'project-a',
      code: 'INVALID_REQUEST',
    });
    expect(JSON.stringify(lines)).not.toMatch(/eyJ[\w-]+\./);
  });

  it('malformed JSON → 400 INVALID_REQUEST', async () => {
    const problem = expectProblem(await post('{"query": ["x"], "tools": [,]}'), 400, 'INVALID_REQUEST');
    expect(problem.detail).toMatch(/JSON/);
    await expectStillServing();
  });

  it('an empty body → 400 INVALID_REQUEST', async () => {
    expectProblem(await post(''), 400, 'INVALID_REQUEST');
    await expectStillServing();
  });

  it('"__proto__" in the body is removed while parsing: 200, not prototype pollution', async () => {
    const response = await post('{"query":["x"],"tools":[],"__proto__":{"polluted":true}}');
    expect(response.status).toBe(200);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    await expectStillServing();
  });

  it('lists each problem once', async () => {
    const problem = expectProblem(
      await post(JSON.stringify({ ...valid, maxResults: 500, limit: 1, query: [] })),
      400,
      'INVALID_REQUEST',
    );
    const seen = problem.errors.map((error: { field: string; message: string }) => `${error.field} ${error.message}`);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('a body over MAX_BODY_BYTES → 413 PAYLOAD_TOO_LARGE', async () => {
    const body = JSON.stringify({ ...valid, context: 'x'.repeat(300 * 1024) });
    const problem = expectProblem(await post(body), 413, 'PAYLOAD_TOO_LARGE');
    // The detail names the limit, so the caller knows how far to cut.
    expect(problem.detail).toBe(
      `The request body is larger than the service accepts: at most ${256 * 1024} bytes (after decompression).`,
    );
    await expectStillServing();
  });

  it('a gzip bomb (small compressed, over MAX_BODY_BYTES inflated) → 413 PAYLOAD_TOO_LARGE', async () => {
    const inflated = JSON.stringify({ ...valid, context: ' '.repeat(20 * 1024 * 1024) });
    const bomb = gzipSync(inflated);
    expect(bomb.length).toBeLessThan(64 * 1024);
    const problem = expectProblem(await post(bomb, { 'content-encoding': 'gzip' }), 413, 'PAYLOAD_TOO_LARGE');
    expect(problem.detail).toContain(`at most ${256 * 1024} bytes`);
    await expectStillServing();
  });

  it('a body that is not what its Content-Encoding says → 400; an unknown encoding → 415', async () => {
    expectProblem(await post(JSON.stringify(valid), { 'content-encoding': 'gzip' }), 400, 'INVALID_REQUEST');
    const problem = expectProblem(
      await post(JSON.stringify(valid), { 'content-encoding': 'compress' }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    expect(problem.detail).toContain('Content-Encoding');
    await expectStillServing();
  });

  it('a Content-Encoding in any case, or with spaces around it, is read as the coding it names', async () => {
    for (const encoding of ['GZIP', 'Gzip', ' gzip ']) {
      const answer = await post(gzipSync(JSON.stringify(valid)), { 'content-encoding': encoding });
      expect(answer.status, encoding).toBe(200);
    }
    expectProblem(await post(JSON.stringify(valid), { 'content-encoding': 'COMPRESS' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('a non-JSON content type → 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    expectProblem(await post(JSON.stringify(valid), { 'content-type': 'text/plain' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectProblem(
      await post('query=x', { 'content-type': 'application/x-www-form-urlencoded' }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    await expectStillServing();
  });

  it('a bad X-Search-Deadline-Ms → 400 naming the header', async () => {
    for (const value of ['soon', '-5', '0', '1.5', '99999999999']) {
      const problem = expectProblem(
        await post(JSON.stringify(valid), { 'x-search-deadline-ms': value }),
        400,
        'INVALID_REQUEST',
        'X-Search-Deadline-Ms',
      );
      expect(problem.detail).toContain('X-Search-Deadline-Ms');
    }
    await expectStillServing();
  });

  it('a list of 100,000 bad servers → 400 naming the first 20 (all of them made a 6 MB answer)', async () => {
    const response = await post(`{"query":["x"],"servers":[${Array.from({ length: 100_000 }, () => '1').join(',')}]}`);
    const problem = expectProblem(response, 400, 'INVALID_REQUEST', '/servers/0');
    expect(problem.errors).toHaveLength(20);
    expect(response.text.length).toBeLessThan(4_096);
    await expectStillServing();
  });

  it('30 refused filter.tools rules → 400 listing the first 20, as every 400 does', async () => {
    const rules = Array.from({ length: 30 }, (_, i) => `/(a${i})\\1/`);
    const problem = expectProblem(
      await post(JSON.stringify({ ...valid, filter: { tools: rules } })),
      400,
      'INVALID_REQUEST',
      '/filter/tools/0',
    );
    expect(problem.errors).toHaveLength(20);
    expect(problem.errors?.at(-1)?.field).toBe('/filter/tools/19');
  });

  it('a filter.tools rule set too costly for one tool → 400 at once, naming /filter/tools (the 1.3 KB attack of issue #22)', async () => {
    // One 512-character tool and five rules of ~1,800 RE2 instructions: 9.2 M steps for one name,
    // 0.6–0.9 s of event loop per request before the per-tool bound.
    const name = 'a'.repeat(512);
    const rules = ['[^a]', 'b', 'c', 'd', 'e'].map((tail) => `/(?:(?:a{1,30}){1,30})${tail}/`);
    const problem = expectProblem(
      await post(
        JSON.stringify({
          query: ['x'],
          tools: [{ toolKey: name, toolName: name, serverName: 'S' }],
          filter: { tools: rules },
        }),
      ),
      400,
      'INVALID_REQUEST',
      '/filter/tools',
    );
    expect(problem.detail).toMatch(/too costly for the longest tool .*9010 RE2 instructions × 1024 characters/);
    await expectStillServing();
  });

  it('a filter.tools rule set too slow for the list → 400 naming /filter/tools, and other searches are answered while it runs', async () => {
    // ~25 ms per 256-character name (under the per-tool bound): about 5 s for these 200 tools, past the
    // worker's 2 s budget.
    const tools = Array.from({ length: 200 }, (_, i) => ({
      toolKey: `s:${i}`,
      toolName: 'ab'.repeat(124) + i,
      serverName: 'S',
    }));
    const rules = Array.from({ length: 16 }, (_, i) => `/[a-z]{1,100}b${i}/`);
    const order: string[] = [];
    const slow = post(JSON.stringify({ query: ['x'], tools, filter: { tools: rules } })).then((response) => {
      order.push('filter');
      return response;
    });
    // The rules run in a worker thread: the event loop answers other searches meanwhile. (An ordering
    // with a margin of the whole 2 s budget, not a speed.)
    await new Promise((resolve) => setTimeout(resolve, 100));
    await expectStillServing();
    order.push('other');
    const problem = expectProblem(await slow, 400, 'INVALID_REQUEST', '/filter/tools');
    expect(problem.detail).toMatch(/took over 2000 ms/);
    expect(order).toEqual(['other', 'filter']);
  });

  it('answers 200 with no results for a body whose hundreds of tools are all unusable, naming the first 20', async () => {
    const tools = Array.from({ length: 150 }, () => ({ toolKey: 1, toolName: 2, serverName: 3 }));
    const response = await post(JSON.stringify({ query: ['x'], tools }));
    expect(response.status).toBe(200);
    const { body } = response;
    expect(body.results).toEqual([]);
    expect(body.meta.skippedCount).toBe(150);
    expect(body.meta.skipped).toHaveLength(20);
    expect(body.meta.skipped[0]).toEqual({ index: 0, reason: '/tools/0/toolName: must be a non-empty string' });
    await expectStillServing();
  });
});

describe('routing', () => {
  it('an unknown route → 404 problem+json', async () => {
    const response = await fetch(`${server.url}/catalog/nope`, { headers: { 'x-request-id': 'r-404' } });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(response.headers.get('x-request-id')).toBe('r-404');
    expect(await response.json()).toMatchObject({ status: 404, code: 'NOT_FOUND', requestId: 'r-404' });
  });

  it('GET on the search route → 405 problem+json with Allow: POST', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/catalog/search' });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe('POST');
    expect(response.json()).toMatchObject({ code: 'METHOD_NOT_ALLOWED' });
    const put = await server.app.inject({ method: 'PUT', url: '/healthz?x=1' });
    expect(put.statusCode).toBe(405);
    expect(put.headers.allow).toBe('GET');
  });

  it('a malformed URL → 400 problem+json', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/catalog/%zz' });
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({ status: 400, code: 'INVALID_REQUEST' });
  });

  it('an unexpected failure → 500 problem+json that hides internals', async () => {
    const { buildApp } = await import('../../src/app.js');
    const app = buildApp(testConfig(), { logStream: server.logs });
    app.get('/boom', async () => {
      throw new Error('secret database password is hunter2');
    });
    const response = await app.inject({ method: 'GET', url: '/boom' });
    expect(response.statusCode).toBe(500);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.body).not.toContain('hunter2');
    expect(response.json()).toMatchObject({ status: 500, code: 'INTERNAL' });
    await app.close();
  });

  it('the sample request fits the default limits', async () => {
    expect((await post(JSON.stringify(sampleRequest))).status).toBe(200);
  });
});
