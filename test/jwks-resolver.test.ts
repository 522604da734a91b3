import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJwksResolver } from '../src/auth/jwks-resolver.js';
import { ASYMMETRIC_ALGORITHMS } from '../src/config.js';
import { ProblemError } from '../src/errors.js';

/** The JWKS fetch throttle, on a real loopback JWKS server and a controlled clock. */
describe('createJwksResolver', () => {
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  let fetches = 0;
  let server: Server;
  let url = '';

  beforeAll(async () => {
    server = createServer((_request, response) => {
      fetches += 1;
      const keys = [{ ...publicKey.export({ format: 'jwk' }), kid: 'key-1', alg: 'ES256' }];
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/keys?tenant=a`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const codeOf = (promise: Promise<unknown>) =>
    promise.then(
      () => 'ok',
      (error: unknown) => (error instanceof ProblemError ? error.code : String(error)),
    );

  it('spaces fetches for uncached kids', async () => {
    let now = 0;
    const resolve = createJwksResolver({ url, algorithms: ASYMMETRIC_ALGORITHMS, cacheTtlMs: 60_000, unknownKidIntervalMs: 1000, now: () => now });

    expect(await resolve({ alg: 'ES256', kid: 'key-1' })).toContain('BEGIN PUBLIC KEY');
    expect(fetches).toBe(1);
    now = 100;
    expect(await codeOf(resolve({ alg: 'ES256', kid: 'key-1' }))).toBe('ok'); // cached: no throttle, no fetch
    expect(await codeOf(resolve({ alg: 'ES256', kid: 'random-1' }))).toBe('UNAUTHORIZED');
    expect(await codeOf(resolve({ alg: 'ES256', kid: 'random-2' }))).toBe('UNAUTHORIZED');
    expect(fetches).toBe(1);

    now = 1200;
    expect(await codeOf(resolve({ alg: 'ES256', kid: 'missing' }))).toBe('UNAUTHORIZED');
    expect(fetches).toBe(2);
    now = 1700; // within the interval of that fetch: refused without a fetch
    expect(await codeOf(resolve({ alg: 'ES256', kid: 'missing' }))).toBe('UNAUTHORIZED');
    expect(fetches).toBe(2);
    now = 2300; // past it: looked up again (a rotated key would be found now)
    expect(await codeOf(resolve({ alg: 'ES256', kid: 'missing' }))).toBe('UNAUTHORIZED');
    expect(fetches).toBe(3);
  });

  it('refuses tokens without a kid or with a symmetric alg before any fetch', async () => {
    const before = fetches;
    const resolve = createJwksResolver({ url, algorithms: ASYMMETRIC_ALGORITHMS, cacheTtlMs: 60_000 });
    expect(await codeOf(resolve({ alg: 'ES256' }))).toBe('UNAUTHORIZED');
    expect(await codeOf(resolve({ alg: 'HS256', kid: 'key-1' }))).toBe('UNAUTHORIZED');
    expect(await codeOf(resolve({ alg: 'none', kid: 'key-1' }))).toBe('UNAUTHORIZED');
    expect(fetches).toBe(before);
  });
});
