// GET /playground: served by default outside production only, with a development token only for a
// development server's own key and a browser on loopback; the page loads nothing from elsewhere. And the
// header it relies on, X-Learning: off. (test/browser/playground.test.ts drives the page in Chromium.)
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig, withDevelopmentKey, type Config } from '../../src/config/index.js';
import { sampleRequest } from '../fixtures/tools.js';
import { startApp, TEST_SECRET, testConfig, type RunningApp } from '../helpers/app.js';
import { searchAs } from '../helpers/search.js';
import { testToken } from '../helpers/tokens.js';

const DEV_ENV = { NODE_ENV: 'development', EMBEDDINGS: 'off', RATE_LIMIT_PER_MINUTE: '0' };
const developmentConfig = (): Config => withDevelopmentKey(parseConfig(DEV_ENV), randomBytes(32).toString('base64url'));
/** The development token in a page, if any. */
const tokenIn = (html: string) => /<meta name="development-token" content="([^"]+)">/.exec(html)?.[1];

describe('PLAYGROUND', () => {
  it('is on outside production and off in production unless set', () => {
    expect(parseConfig(DEV_ENV).playground.enabled).toBe(true);
    expect(parseConfig({ ...DEV_ENV, PLAYGROUND: 'off' }).playground.enabled).toBe(false);
    const production = { NODE_ENV: 'production', AUTH_JWT_SECRET: TEST_SECRET };
    expect(parseConfig(production).playground.enabled).toBe(false);
    expect(parseConfig({ ...production, PLAYGROUND: 'on' }).playground.enabled).toBe(true);
    expect(() => parseConfig({ ...production, PLAYGROUND: 'yes' })).toThrow(/PLAYGROUND: must be one of on, off/);
  });
});

describe('GET /playground on a development server (its own key)', () => {
  let server: RunningApp;
  beforeAll(async () => {
    server = await startApp(developmentConfig());
  });
  afterAll(() => server.close());

  it('fills in a development token that searches, for a browser on loopback; nothing inline or from elsewhere', async () => {
    const response = await fetch(`${server.url}/playground`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; " +
        "form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
    );
    // The page carries a token: it must not be cached or sent on as a referrer.
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await response.text();
    expect(html).not.toMatch(/https?:\/\//); // no CDN, nothing fetched from elsewhere
    expect(html).not.toMatch(/<script>|<style>| style="/); // the CSP allows neither
    const token = tokenIn(html)!;
    const search = await searchAs(server.url, sampleRequest, { token });
    expect(search.status).toBe(200);

    for (const [path, type] of [
      ['/playground/playground.js', 'text/javascript; charset=utf-8'],
      ['/playground/playground.css', 'text/css; charset=utf-8'],
      ['/playground/sample.json', 'application/json; charset=utf-8'],
    ]) {
      const asset = await fetch(`${server.url}${path}`);
      expect([path, asset.status, asset.headers.get('content-type')]).toEqual([path, 200, type]);
    }
  });

  it('gives no token to a browser elsewhere on the network', async () => {
    const response = await server.app.inject({ url: '/playground', remoteAddress: '192.0.2.7' });
    expect(response.statusCode).toBe(200);
    expect(tokenIn(response.body)).toBeUndefined();
    expect(response.body).toContain('<input id="token"');
  });

  it('is not in the OpenAPI document', async () => {
    const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths).filter((path) => path.startsWith('/playground'))).toEqual([]);
  });
});

describe('GET /playground with a real key', () => {
  it('in production with PLAYGROUND=on: the page without a token (paste one); unset: 404', async () => {
    const on = await startApp(testConfig({ playground: { enabled: true } }));
    const off = await startApp(testConfig());
    try {
      const page = await fetch(`${on.url}/playground`);
      expect(page.status).toBe(200);
      expect(tokenIn(await page.text())).toBeUndefined();
      expect((await fetch(`${off.url}/playground`)).status).toBe(404);
      expect((await fetch(`${off.url}/playground/playground.js`)).status).toBe(404);
    } finally {
      await on.close();
      await off.close();
    }
  });

  it('outside production with a configured AUTH_JWT_SECRET: no token either', async () => {
    const server = await startApp(parseConfig({ ...DEV_ENV, AUTH_JWT_SECRET: TEST_SECRET }));
    try {
      const page = await fetch(`${server.url}/playground`);
      expect(page.status).toBe(200);
      expect(tokenIn(await page.text())).toBeUndefined();
    } finally {
      await server.close();
    }
  });
});

describe('X-Learning: off', () => {
  let server: RunningApp;
  beforeAll(async () => {
    server = await startApp(testConfig());
  });
  afterAll(() => server.close());

  it('answers without what the project taught; on (or absent) with it; another value → 400', async () => {
    const token = testToken({ projectId: 'learning-header' });
    const request = { ...sampleRequest, query: ['find a free slot for the design review'] };
    const ranking = async (headers: Record<string, string> = {}) => {
      const response = await searchAs(server.url, request, { token, headers });
      expect(response.status).toBe(200);
      return response.body as {
        results: Array<{ toolKey: string; explanation?: string }>;
        meta: { learning?: string; requestId: string };
      };
    };
    // Teach a tool that the words alone do not put first, through four distinct searches.
    const before = await ranking();
    const taught = before.results[2]!.toolKey;
    for (let i = 0; i < 4; i++) {
      const { meta } = await ranking();
      const report = await fetch(`${server.url}/v1/catalog/feedback`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ events: [{ requestId: meta.requestId, toolKey: taught, outcome: 'succeeded' }] }),
      });
      expect(report.status).toBe(202);
    }
    const learned = await ranking({ 'x-learning': 'on' });
    expect(learned.meta.learning).toBe('raised');
    expect(learned.results.find((result) => result.toolKey === taught)!.explanation).toContain('raised by past use');

    const unlearned = await ranking({ 'x-learning': 'off' });
    expect(unlearned.meta.learning).toBeUndefined();
    expect(unlearned.results.map((result) => result.toolKey)).toEqual(before.results.map((result) => result.toolKey));
    expect(JSON.stringify(unlearned.results)).not.toContain('raised by past use');

    const refused = await searchAs(server.url, request, { token, headers: { 'x-learning': 'maybe' } });
    expect(refused.status).toBe(400);
  });
});
