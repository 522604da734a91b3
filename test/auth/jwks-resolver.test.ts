import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createJwksResolver, type DecodedToken, type JwksResolverOptions } from '../../src/auth/jwks-resolver.js';
import { ASYMMETRIC_ALGORITHMS } from '../../src/config/index.js';
import { ProblemError } from '../../src/http/errors.js';
import { JwksServer, newSigningKey, signWith, type SigningKey } from '../helpers/jwks-server.js';

/** The JWKS key source on a real loopback JWKS server: whole sets, throttled refetches, stale-while-refresh. */
const decode = (jwt: string): DecodedToken => {
  const [header, payload] = jwt
    .split('.')
    .slice(0, 2)
    .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()) as unknown);
  return { header: header as DecodedToken['header'], payload };
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('createJwksResolver', () => {
  let jwks: JwksServer;
  let first: SigningKey;
  beforeEach(async () => {
    jwks = await new JwksServer().start();
    first = jwks.publish(newSigningKey('key-1'));
  });
  afterEach(() => jwks.close());

  const resolverFor = (options: Partial<JwksResolverOptions> = {}) => {
    const resolve = createJwksResolver({
      url: jwks.url,
      algorithms: ASYMMETRIC_ALGORITHMS,
      cacheTtlMs: 60_000,
      minRefetchMs: 200,
      ...options,
    });
    return (key: SigningKey | string, claims: Record<string, unknown> = {}) => {
      const token = typeof key === 'string' ? signWith({ ...newSigningKey(key) }, claims) : signWith(key, claims);
      return resolve(decode(token)).then(
        (pem) => (pem.includes('BEGIN PUBLIC KEY') ? 'ok' : pem),
        (error: unknown) => (error instanceof ProblemError ? error.code : String(error)),
      );
    };
  };

  it('learns the whole set from any refetch, so a refetch caused by a random kid teaches the new key too', async () => {
    const resolve = resolverFor();
    expect(await resolve(first)).toBe('ok');
    expect(jwks.fetches).toBe(1);
    const second = jwks.publish(newSigningKey('key-2'));
    await sleep(250);
    expect(await resolve('random-kid')).toBe('UNAUTHORIZED'); // refetched: not there
    expect(jwks.fetches).toBe(2);
    expect(await resolve(second)).toBe('ok'); // learnt by that refetch, no fetch of its own
    expect(jwks.fetches).toBe(2);
  });

  it('refetches for unknown kids at most once per minRefetchMs, then finds a newly published key', async () => {
    // A cooldown long enough that the twenty lookups and the publish below stay inside it on a loaded machine.
    const resolve = resolverFor({ minRefetchMs: 1000 });
    expect(await resolve(first)).toBe('ok');
    await sleep(1050);
    for (let i = 0; i < 20; i += 1) expect(await resolve(`random-${i}`)).toBe('UNAUTHORIZED');
    expect(jwks.fetches).toBe(2); // one refetch for twenty unknown kids
    const second = jwks.publish(newSigningKey('key-2'));
    expect(await resolve(second)).toBe('UNAUTHORIZED'); // within the cooldown
    await sleep(1050);
    expect(await resolve(second)).toBe('ok');
    expect(jwks.fetches).toBe(3);
  });

  it('stops accepting a key as soon as a refetch no longer lists it', async () => {
    const resolve = resolverFor({ cacheTtlMs: 200 });
    const second = jwks.publish(newSigningKey('key-2'));
    expect(await resolve(first)).toBe('ok');
    jwks.remove(first);
    await sleep(250);
    expect(await resolve(second)).toBe('ok'); // past the TTL: starts the refresh in the background
    await expect.poll(() => resolve(first), { timeout: 2000, interval: 50 }).toBe('UNAUTHORIZED');
    expect(await resolve(second)).toBe('ok');
  });

  it('keeps serving the last good set while a refresh hangs, and retries a refresh that timed out', async () => {
    const resolve = resolverFor({ cacheTtlMs: 200, fetchTimeoutMs: 2_000 });
    expect(await resolve(first)).toBe('ok');
    await sleep(250);
    jwks.delayMs = 5_000;
    const started = Date.now();
    for (let i = 0; i < 5; i += 1) expect(await resolve(first)).toBe('ok');
    // A resolve that waited for the refresh would return once it is abandoned, 2 s on; a busy machine's
    // slowness gets the rest (a 500 ms timeout against a fixed 400 ms bound left it 100).
    expect(Date.now() - started, 'known keys do not wait for the refresh').toBeLessThan(1_900);
    // The refresh's fetch reached the key server, which holds it 5 s; it is abandoned at 2 s, and the
    // next refresh, answered at once, finds the new key.
    await expect.poll(() => jwks.fetches, { timeout: 5_000, interval: 10 }).toBe(2);
    jwks.delayMs = 0;
    const second = jwks.publish(newSigningKey('key-2'));
    await expect.poll(() => resolve(second), { timeout: 8_000, interval: 100 }).toBe('ok');
    expect(jwks.fetches).toBeGreaterThanOrEqual(3); // the first, the abandoned one, the retry
  });

  it('answers 503 with Retry-After only when the token key cannot be known: known keys verify through an outage', async () => {
    jwks.down = true;
    const resolve = resolverFor();
    const token = decode(signWith(first));
    const error = await createJwksResolver({
      url: jwks.url,
      algorithms: ASYMMETRIC_ALGORITHMS,
      cacheTtlMs: 60_000,
      minRefetchMs: 200,
    })(token).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProblemError);
    expect((error as ProblemError).code).toBe('AUTH_UNAVAILABLE');
    expect((error as ProblemError).extra.headers?.['retry-after']).toBe('5');

    jwks.down = false;
    expect(await resolve(first)).toBe('ok');
    jwks.down = true;
    await sleep(250);
    expect(await resolve('rotated-kid')).toBe('AUTH_UNAVAILABLE'); // might be a real new key: not a 401
    expect(await resolve(first)).toBe('ok');
    const fetchesBefore = jwks.fetches;
    for (let i = 0; i < 10; i += 1) await resolve(`random-${i}`);
    expect(
      jwks.fetches - fetchesBefore,
      'a failing key server is retried at most once per minRefetchMs',
    ).toBeLessThanOrEqual(1);
  });

  it('refuses tokens without a kid, with a symmetric or no alg, expired or from another issuer, before any fetch', async () => {
    const resolve = createJwksResolver({
      url: jwks.url,
      algorithms: ASYMMETRIC_ALGORITHMS,
      cacheTtlMs: 60_000,
      minRefetchMs: 0,
      issuers: ['https://router.example'],
    });
    const good = decode(signWith(first, { iss: 'https://router.example' }));
    const code = (token: DecodedToken) =>
      resolve(token).then(
        () => 'ok',
        (error: ProblemError) => error.code,
      );
    expect(await code({ ...good, header: { alg: 'ES256' } })).toBe('UNAUTHORIZED');
    expect(await code({ ...good, header: { alg: 'HS256', kid: 'key-1' } })).toBe('UNAUTHORIZED');
    expect(await code({ ...good, header: { alg: 'none', kid: 'key-1' } })).toBe('UNAUTHORIZED');
    expect(await code({ ...good, payload: { iss: 'https://evil.example', exp: Date.now() / 1000 + 60 } })).toBe(
      'UNAUTHORIZED',
    );
    expect(await code({ ...good, payload: { iss: 'https://router.example', exp: Date.now() / 1000 - 60 } })).toBe(
      'UNAUTHORIZED',
    );
    expect(jwks.fetches).toBe(0);
    expect(await code(good)).toBe('ok');
    expect(jwks.fetches).toBe(1);
  });
});
