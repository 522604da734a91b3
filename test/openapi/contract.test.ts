import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolSetId } from '@catalog-search/core';
import {
  EXAMPLE_FILTERED_SEARCH_REQUEST,
  EXAMPLE_GROUPED_SEARCH_REQUEST,
  EXAMPLE_SEARCH_BY_REFERENCE,
  EXAMPLE_SEARCH_REQUEST,
  EXAMPLE_TOOL_SET,
} from '../../src/schemas/search-examples.js';
import { EXAMPLE_FEEDBACK_REQUEST, EXAMPLE_FEEDBACK_RESPONSE } from '../../src/schemas/feedback.js';
import { EXAMPLE_REQUEST_ID } from '../../src/schemas/responses.js';
import { startApp, testConfig, type RunningApp } from '../helpers/app.js';
import { testToken } from '../helpers/tokens.js';
import { manyTools } from '../fixtures/tools.js';
import { contractViolations, matchesComponent } from './spec-validator.js';

/**
 * The generated-client contract: types generated from openapi.yaml with openapi-typescript,
 * calls made with openapi-fetch over real loopback HTTP, tokens signed at run time, and every
 * response (success and each error) checked against the spec's own schemas.
 */

const root = fileURLToPath(new URL('../..', import.meta.url));
const generatedTypes = fileURLToPath(new URL('./generated/catalog-search.d.ts', import.meta.url));
const clientSource = fileURLToPath(new URL('./contract-client.ts', import.meta.url));
const clientModule = new URL('./contract-client.ts', import.meta.url).href;

const MAX_TOOLS = 20;
const BODY_LIMIT = 64 * 1024;

/** contract-client.ts, loaded after its types are generated (tsc checks it against them below). */
interface Call {
  response: Response;
  data?: any;
  error?: any;
}
interface ContractClient {
  catalogSearchClient(baseUrl: string, token?: string): unknown;
  searchV1(client: unknown, body: unknown, header?: Record<string, string>): Promise<Call>;
  searchSeedPath(client: unknown, body: unknown): Promise<Call>;
  searchRaw(
    client: unknown,
    body: unknown,
    options?: { contentType?: string; contentEncoding?: string },
  ): Promise<Call>;
  reportV1(client: unknown, body: unknown): Promise<Call>;
  reportSeedPath(client: unknown, body: unknown): Promise<Call>;
  reportRaw(client: unknown, body: unknown): Promise<Call>;
  forgetV1(client: unknown): Promise<Call>;
  forgetSeedPath(client: unknown): Promise<Call>;
  ignoredReasons(response: unknown): string[];
  liveness(client: unknown): Promise<Call>;
  readiness(client: unknown): Promise<Call>;
  topToolKeys(response: unknown): string[];
}
let client: ContractClient;
let server: RunningApp;
let throttled: RunningApp;

beforeAll(async () => {
  // openapi-typescript 7 marks a component's fields that have a `default` as required unless told
  // not to (maxResults in SearchRequest); routers generating types should pass the same option.
  const ast = await openapiTS(new URL('../../openapi.yaml', import.meta.url), { defaultNonNullable: false });
  await mkdir(new URL('./generated/', import.meta.url), { recursive: true });
  await writeFile(generatedTypes, astToString(ast));
  // A computed specifier keeps tsc (npm run typecheck) from needing the generated file on a clean clone.
  client = (await import(/* @vite-ignore */ clientModule)) as ContractClient;
  [server, throttled] = await Promise.all([
    startApp(
      testConfig({
        search: { ...testConfig().search, maxTools: MAX_TOOLS },
        http: { ...testConfig().http, bodyLimitBytes: BODY_LIMIT },
      }),
    ),
    startApp(testConfig({ rateLimitPerMinute: 1 })),
  ]);
}, 60_000);
afterAll(async () => {
  await Promise.all([server?.close(), throttled?.close()]);
});

/** The response must match the spec for that path, and have the expected status. */
async function expectContract(call: Promise<Call>, path: string, method: 'get' | 'post' | 'delete', status: number) {
  const result = await call;
  const body = result.response.ok ? result.data : result.error;
  expect(result.response.status, JSON.stringify(body)).toBe(status);
  expect(contractViolations({ path, method, response: result.response, body })).toEqual([]);
  return { ...result, body };
}

describe('client generated from openapi.yaml (openapi-typescript + openapi-fetch)', () => {
  it("type-checks a router's usage of the generated types (tsc --noEmit)", async () => {
    const tsc = fileURLToPath(new URL('../../node_modules/.bin/tsc', import.meta.url));
    const args = [
      '--noEmit',
      '--strict',
      '--noUncheckedIndexedAccess',
      '--skipLibCheck',
      '--target',
      'es2022',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--lib',
      'es2023,dom',
      '--types',
      'node',
      clientSource,
    ];
    const result = await promisify(execFile)(tsc, args, { cwd: root }).catch((error: { stdout?: string }) => ({
      stdout: error.stdout ?? 'tsc failed',
    }));
    expect(result.stdout).toBe('');
  }, 60_000);

  it('POST /v1/catalog/search: 200 with ranked results that match the spec', async () => {
    const api = client.catalogSearchClient(server.url, testToken());
    const { data, response } = await expectContract(
      client.searchV1(api, EXAMPLE_SEARCH_REQUEST, { 'X-Request-Id': 'contract-1', 'X-Search-Deadline-Ms': '2000' }),
      '/v1/catalog/search',
      'post',
      200,
    );
    expect(data!.results.length).toBeGreaterThan(0);
    expect(data!.meta.requestId).toBe('contract-1');
    expect(response.headers.get('api-version')).toBe('1');
  });

  it('SearchRequest is a oneOf: the ToolInfo form and the grouped MCP form each match exactly one branch', async () => {
    expect(matchesComponent('SearchRequest', EXAMPLE_SEARCH_REQUEST)).toBe(true);
    expect(matchesComponent('SearchRequest', EXAMPLE_GROUPED_SEARCH_REQUEST)).toBe(true);
    expect(matchesComponent('SearchRequest', EXAMPLE_FILTERED_SEARCH_REQUEST)).toBe(true);
    // Both lists at once match both branches' required fields but neither branch: refused by oneOf.
    expect(
      matchesComponent('SearchRequest', { ...EXAMPLE_SEARCH_REQUEST, servers: EXAMPLE_GROUPED_SEARCH_REQUEST.servers }),
    ).toBe(false);
    expect(matchesComponent('SearchRequest', { query: ['x'] })).toBe(false);
  });

  it('POST /v1/catalog/search with the grouped MCP form and with filters: 200 that matches the spec', async () => {
    const api = client.catalogSearchClient(server.url, testToken());
    const grouped = await expectContract(
      client.searchV1(api, EXAMPLE_GROUPED_SEARCH_REQUEST),
      '/v1/catalog/search',
      'post',
      200,
    );
    expect(client.topToolKeys(grouped.data!)[0]).toMatch(/^slack:slack_post_message /);
    const filtered = await expectContract(
      client.searchV1(api, EXAMPLE_FILTERED_SEARCH_REQUEST),
      '/v1/catalog/search',
      'post',
      200,
    );
    expect(client.topToolKeys(filtered.data!).join(' ')).not.toContain('slack:slack_delete_channel');
  });

  it('200 with meta.skipped: tools that cannot be used are named, and the answer matches the spec', async () => {
    const api = client.catalogSearchClient(server.url, testToken());
    const body = {
      ...EXAMPLE_SEARCH_REQUEST,
      tools: [...EXAMPLE_SEARCH_REQUEST.tools, { toolKey: 'toolink:', toolName: '', serverName: 'Toolink' }],
    };
    const skipped = await expectContract(client.searchRaw(api, body), '/v1/catalog/search', 'post', 200);
    expect(skipped.data!.meta).toMatchObject({
      skippedCount: 1,
      skipped: [{ index: EXAMPLE_SEARCH_REQUEST.tools.length, toolKey: 'toolink:' }],
    });
  });

  it('POST /catalog/search (seed path): the same operation, the same answer', async () => {
    const api = client.catalogSearchClient(server.url, testToken());
    const seed = await expectContract(
      client.searchSeedPath(api, EXAMPLE_SEARCH_REQUEST),
      '/catalog/search',
      'post',
      200,
    );
    const v1 = await expectContract(client.searchV1(api, EXAMPLE_SEARCH_REQUEST), '/v1/catalog/search', 'post', 200);
    expect(client.topToolKeys(seed.data!)).toEqual(client.topToolKeys(v1.data!));
  });

  it('400: a field error names the field; a bad deadline header names the header', async () => {
    const api = client.catalogSearchClient(server.url, testToken());
    const field = await expectContract(
      client.searchRaw(api, { query: [], tools: [] }),
      '/v1/catalog/search',
      'post',
      400,
    );
    expect(field.error).toMatchObject({ code: 'INVALID_REQUEST', errors: [{ field: '/query' }] });
    const header = await expectContract(
      client.searchV1(api, EXAMPLE_SEARCH_REQUEST, { 'X-Search-Deadline-Ms': 'soon' }),
      '/v1/catalog/search',
      'post',
      400,
    );
    expect(header.error).toMatchObject({ errors: [{ field: 'X-Search-Deadline-Ms' }] });
    const unknownField = await expectContract(
      client.searchRaw(api, { ...EXAMPLE_SEARCH_REQUEST, limit: 3 }),
      '/v1/catalog/search',
      'post',
      400,
    );
    expect(unknownField.error).toMatchObject({ code: 'INVALID_REQUEST' });
  });

  it('401: no token, and a token signed with another key', async () => {
    const anonymous = client.catalogSearchClient(server.url);
    await expectContract(client.searchV1(anonymous, EXAMPLE_SEARCH_REQUEST), '/v1/catalog/search', 'post', 401);
    const forged = testToken({ key: 'another-secret-that-is-at-least-32-bytes' });
    const bad = client.catalogSearchClient(server.url, forged);
    await expectContract(client.searchV1(bad, EXAMPLE_SEARCH_REQUEST), '/v1/catalog/search', 'post', 401);
  });

  it("403: X-Project-Id differs from the token's project claim; a token without a project", async () => {
    const api = client.catalogSearchClient(server.url, testToken({ claims: { projectId: 'project-a' } }));
    const mismatch = await expectContract(
      client.searchV1(api, EXAMPLE_SEARCH_REQUEST, { 'X-Project-Id': 'project-b' }),
      '/v1/catalog/search',
      'post',
      403,
    );
    expect(mismatch.error).toMatchObject({ code: 'FORBIDDEN' });
    const noProject = client.catalogSearchClient(server.url, testToken({ claims: { projectId: undefined } }));
    await expectContract(client.searchV1(noProject, EXAMPLE_SEARCH_REQUEST), '/v1/catalog/search', 'post', 403);
  });

  it('413: more tools than MAX_TOOLS, and a body over MAX_BODY_BYTES', async () => {
    const api = client.catalogSearchClient(server.url, testToken());
    const tooMany = await expectContract(
      client.searchV1(api, { query: ['read a file'], tools: manyTools(MAX_TOOLS + 1) }),
      '/v1/catalog/search',
      'post',
      413,
    );
    expect(tooMany.error).toMatchObject({ code: 'TOO_MANY_TOOLS' });
    const huge = {
      query: ['read a file'],
      tools: [{ toolKey: 'fs:read', toolName: 'read', serverName: 'fs', description: 'x'.repeat(BODY_LIMIT) }],
    };
    const tooLarge = await expectContract(client.searchV1(api, huge), '/v1/catalog/search', 'post', 413);
    expect(tooLarge.error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });

  it('415: a body that is not JSON, or in an unsupported Content-Encoding', async () => {
    const api = client.catalogSearchClient(server.url, testToken());
    const result = await expectContract(
      client.searchRaw(api, 'read a file', { contentType: 'text/plain' }),
      '/v1/catalog/search',
      'post',
      415,
    );
    expect(result.error).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
    const encoded = await expectContract(
      client.searchRaw(api, JSON.stringify(EXAMPLE_SEARCH_REQUEST), { contentEncoding: 'compress' }),
      '/v1/catalog/search',
      'post',
      415,
    );
    expect(encoded.error).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
  });

  it('409: a toolSet reference the service does not hold; the reference it handed out works', async () => {
    const api = client.catalogSearchClient(server.url, testToken({ claims: { projectId: 'contract-tool-sets' } }));
    const unknown = await expectContract(
      client.searchV1(api, EXAMPLE_SEARCH_BY_REFERENCE),
      '/v1/catalog/search',
      'post',
      409,
    );
    expect(unknown.error).toMatchObject({ code: 'TOOL_SET_UNKNOWN', errors: [{ field: '/toolSet' }] });
    const full = await expectContract(client.searchV1(api, EXAMPLE_SEARCH_REQUEST), '/v1/catalog/search', 'post', 200);
    // The documented example id is the example list's real id.
    expect(full.data!.meta.toolSet).toBe(EXAMPLE_TOOL_SET);
    expect(await toolSetId(EXAMPLE_SEARCH_REQUEST.tools)).toBe(EXAMPLE_TOOL_SET);
    const byReference = await expectContract(
      client.searchV1(api, EXAMPLE_SEARCH_BY_REFERENCE),
      '/v1/catalog/search',
      'post',
      200,
    );
    expect(client.topToolKeys(byReference.data!)).toEqual(client.topToolKeys(full.data!));
  });

  it("429: over the project's rate limit, with Retry-After", async () => {
    const api = client.catalogSearchClient(throttled.url, testToken({ claims: { projectId: 'contract-throttled' } }));
    await expectContract(client.searchV1(api, EXAMPLE_SEARCH_REQUEST), '/v1/catalog/search', 'post', 200);
    const limited = await expectContract(
      client.searchV1(api, EXAMPLE_SEARCH_REQUEST),
      '/v1/catalog/search',
      'post',
      429,
    );
    expect(limited.error).toMatchObject({ code: 'RATE_LIMITED' });
    expect(Number(limited.response.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('POST /v1/catalog/feedback: the documented example after its search gives the documented answer (202); DELETE 204', async () => {
    const api = client.catalogSearchClient(server.url, testToken({ claims: { projectId: 'contract-feedback' } }));
    // The search whose meta.requestId the example reports.
    await expectContract(
      client.searchV1(api, EXAMPLE_SEARCH_REQUEST, { 'X-Request-Id': EXAMPLE_REQUEST_ID }),
      '/v1/catalog/search',
      'post',
      200,
    );
    const report = await expectContract(
      client.reportV1(api, EXAMPLE_FEEDBACK_REQUEST),
      '/v1/catalog/feedback',
      'post',
      202,
    );
    expect(report.data).toEqual(EXAMPLE_FEEDBACK_RESPONSE);
    expect(client.ignoredReasons(report.data!)).toEqual([
      '2: requestId: no recent search of this project has this id; send query',
    ]);
    await expectContract(client.reportSeedPath(api, EXAMPLE_FEEDBACK_REQUEST), '/catalog/feedback', 'post', 202);
    const learned = await expectContract(
      client.searchV1(api, EXAMPLE_SEARCH_REQUEST),
      '/v1/catalog/search',
      'post',
      200,
    );
    expect(learned.data!.meta.learning).toMatch(/^(raised|unchanged)$/);
    await expectContract(client.forgetV1(api), '/v1/catalog/feedback', 'delete', 204);
    await expectContract(client.forgetSeedPath(api), '/catalog/feedback', 'delete', 204);
    const forgotten = await expectContract(
      client.searchV1(api, EXAMPLE_SEARCH_REQUEST),
      '/v1/catalog/search',
      'post',
      200,
    );
    expect(forgotten.data!.meta).not.toHaveProperty('learning');
    expect(matchesComponent('FeedbackRequest', EXAMPLE_FEEDBACK_REQUEST)).toBe(true);
  });

  it('POST /v1/catalog/feedback errors match the spec: 400, 401, 413, 429', async () => {
    const api = client.catalogSearchClient(server.url, testToken({ claims: { projectId: 'contract-feedback' } }));
    const invalid = await expectContract(client.reportRaw(api, { events: [] }), '/v1/catalog/feedback', 'post', 400);
    expect(invalid.error).toMatchObject({ code: 'INVALID_REQUEST', errors: [{ field: '/events' }] });
    await expectContract(
      client.reportV1(client.catalogSearchClient(server.url), EXAMPLE_FEEDBACK_REQUEST),
      '/v1/catalog/feedback',
      'post',
      401,
    );
    await expectContract(
      client.forgetV1(client.catalogSearchClient(server.url)),
      '/v1/catalog/feedback',
      'delete',
      401,
    );
    const huge = { events: [{ query: 'x'.repeat(300 * 1024), toolKey: 'a:b', outcome: 'selected' }] };
    await expectContract(client.reportRaw(api, huge), '/v1/catalog/feedback', 'post', 413);
    const limited = client.catalogSearchClient(
      throttled.url,
      testToken({ claims: { projectId: 'contract-feedback-throttled' } }),
    );
    await expectContract(client.reportV1(limited, EXAMPLE_FEEDBACK_REQUEST), '/v1/catalog/feedback', 'post', 202);
    await expectContract(client.reportV1(limited, EXAMPLE_FEEDBACK_REQUEST), '/v1/catalog/feedback', 'post', 429);
    // DELETE counts against the same budget.
    await expectContract(client.forgetV1(limited), '/v1/catalog/feedback', 'delete', 429);
  });

  it('GET /healthz and /readyz: 200, and 503 while shutting down', async () => {
    const api = client.catalogSearchClient(server.url);
    await expectContract(client.liveness(api), '/healthz', 'get', 200);
    await expectContract(client.readiness(api), '/readyz', 'get', 200);
    server.app.lifecycle.shuttingDown = true;
    try {
      await expectContract(client.readiness(api), '/readyz', 'get', 503);
    } finally {
      server.app.lifecycle.shuttingDown = false;
    }
  });
});
