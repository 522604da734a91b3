import { readFile } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { ConfigError, parseConfig } from '../../src/config/index.js';
import { testConfig } from '../helpers/app.js';

/** /docs, /openapi.json and /openapi.yaml: served by default, all gone with DOCS_ENABLED=false. */

const committed = parse(await readFile(new URL('../../openapi.yaml', import.meta.url), 'utf8')) as Record<
  string,
  unknown
>;

describe('docs enabled (default)', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = buildApp(testConfig({ logLevel: 'silent' }));
    await app.ready();
  });
  afterAll(() => app.close());

  it('serves the spec as JSON and YAML: the same document, with the committed paths and schemas', async () => {
    const json = await app.inject({ method: 'GET', url: '/openapi.json' });
    const yaml = await app.inject({ method: 'GET', url: '/openapi.yaml' });
    expect(json.statusCode).toBe(200);
    expect(json.headers['content-type']).toMatch(/^application\/json/);
    expect(yaml.statusCode).toBe(200);
    expect(yaml.headers['content-type']).toMatch(/^application\/yaml/);
    const served = json.json() as Record<string, unknown>;
    expect(parse(yaml.body)).toEqual(served);
    expect(served.openapi).toBe('3.1.0');
    // Descriptions quote this deployment's limits; the structure is the committed file's.
    expect(Object.keys(served.paths as object)).toEqual(Object.keys(committed.paths as object));
    expect((served.components as { schemas: unknown }).schemas).toEqual(
      (committed.components as { schemas: unknown }).schemas,
    );
  });

  it('documents neither itself nor the reference page', async () => {
    const paths = Object.keys((await app.inject({ method: 'GET', url: '/openapi.json' })).json().paths);
    expect(paths).toEqual([
      '/healthz',
      '/readyz',
      '/v1/catalog/search',
      '/catalog/search',
      '/v1/catalog/feedback',
      '/catalog/feedback',
    ]);
  });

  it('serves the /docs reference page with its script from this service, never from a CDN', async () => {
    const page = await app.inject({ method: 'GET', url: '/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const sources = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]);
    expect(sources).toEqual(['js/scalar.js']);
    expect(page.body).not.toMatch(/https?:\/\//);
    // Scalar's defaults would fetch web fonts, send telemetry and query its registry for the AI agent.
    expect(page.body).toContain('"withDefaultFonts": false');
    expect(page.body).toContain('"telemetry": false');
    expect(page.body).toMatch(/"agent": \{\s*"disabled": true\s*\}/);
    const script = await app.inject({ method: 'GET', url: '/docs/js/scalar.js' });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toMatch(/javascript/);
    expect(script.body.length).toBeGreaterThan(100_000);
    expect((await app.inject({ method: 'GET', url: '/docs' })).statusCode).toBe(301);
  });

  it('sends API-Version on every response, errors included', async () => {
    for (const url of ['/healthz', '/openapi.json', '/no-such-path']) {
      expect((await app.inject({ method: 'GET', url })).headers['api-version'], url).toBe('1');
    }
  });
});

describe('docs disabled (DOCS_ENABLED=false)', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = buildApp(testConfig({ logLevel: 'silent', docs: { enabled: false } }));
    await app.ready();
  });
  afterAll(() => app.close());

  it('answers 404 problem+json for the reference page, its script and both spec formats', async () => {
    for (const url of [
      '/docs',
      '/docs/',
      '/docs/js/scalar.js',
      '/docs/openapi.json',
      '/openapi.json',
      '/openapi.yaml',
    ]) {
      const response = await app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(404);
      expect(response.headers['content-type'], url).toMatch(/^application\/problem\+json/);
    }
  });

  it('still serves the API', async () => {
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });
});

describe('DOCS_ENABLED parsing', () => {
  const env = { AUTH_JWT_SECRET: 'x'.repeat(32) };

  it('defaults to on, and reads true/false/1/0', () => {
    expect(parseConfig(env).docs.enabled).toBe(true);
    expect(parseConfig({ ...env, DOCS_ENABLED: 'false' }).docs.enabled).toBe(false);
    expect(parseConfig({ ...env, DOCS_ENABLED: '0' }).docs.enabled).toBe(false);
    expect(parseConfig({ ...env, DOCS_ENABLED: 'TRUE' }).docs.enabled).toBe(true);
  });

  it('names the variable when the value is not a boolean', () => {
    expect(() => parseConfig({ ...env, DOCS_ENABLED: 'maybe' })).toThrow(ConfigError);
    expect(() => parseConfig({ ...env, DOCS_ENABLED: 'maybe' })).toThrow(/DOCS_ENABLED: must be true or false/);
  });
});
