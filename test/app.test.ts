import { describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { testConfig } from './helpers/app.js';

describe('buildApp', () => {
  it('sets explicit server timeouts and the body limit from config', async () => {
    const app = buildApp(
      testConfig({
        http: { bodyLimitBytes: 12_345, requestTimeoutMs: 11_000, headersTimeoutMs: 7_000, keepAliveTimeoutMs: 9_000 },
      }),
    );
    await app.ready();
    expect(app.server.requestTimeout).toBe(11_000);
    expect(app.server.headersTimeout).toBe(7_000);
    expect(app.server.keepAliveTimeout).toBe(9_000);
    expect(app.initialConfig.bodyLimit).toBe(12_345);
    await app.close();
  });

  it('refuses a config without auth (only server.ts may substitute a development key)', () => {
    expect(() => buildApp({ ...testConfig(), auth: undefined })).toThrow(/config.auth/);
  });

  it('marks itself as shutting down when closed', async () => {
    const app = buildApp(testConfig());
    await app.ready();
    expect(app.lifecycle.shuttingDown).toBe(false);
    await app.close();
    expect(app.lifecycle.shuttingDown).toBe(true);
  });
});
