import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { algorithmsForKey, ASYMMETRIC_ALGORITHMS, type AuthConfig } from '../../src/config/index.js';
import { startApp, testConfig, type RunningApp } from '../helpers/app.js';
import { searchAs } from '../helpers/search.js';
import { bearer, claims, nowSec, type TestAlg, testToken } from '../helpers/tokens.js';
import { sampleTools } from '../fixtures/tools.js';

const body = JSON.stringify({ query: ['create a github issue'], tools: sampleTools, maxResults: 3 });

/** The Authorization header as given (or none): these tests are about the header itself. */
async function search(url: string, authorization: string | undefined, headers: Record<string, string> = {}) {
  const answer = await searchAs(url, body, {
    path: '/catalog/search',
    token: null,
    headers: { ...(authorization ? { authorization } : {}), ...headers },
  });
  return { ...answer, json: answer.body };
}

function expectUnauthorized(response: Awaited<ReturnType<typeof search>>, oauthError: string | undefined) {
  expect(response.status).toBe(401);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(response.json).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
  const challenge = response.headers.get('www-authenticate') ?? '';
  expect(challenge).toMatch(/^Bearer realm="catalog-search"/);
  if (oauthError) expect(challenge).toContain(`error="${oauthError}"`);
  else expect(challenge).not.toContain('error=');
}

describe('HS256 secret: the bad-token matrix', () => {
  let server: RunningApp;
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });

  beforeAll(async () => {
    server = await startApp(testConfig());
  });
  afterAll(() => server.close());

  const bad: [string, () => string | undefined, string | undefined][] = [
    ['no Authorization header', () => undefined, undefined],
    // RFC 6750 §3.1: no bearer credentials at all → a bare challenge without an error code.
    ['a Basic scheme', () => 'Basic dXNlcjpwYXNz', undefined],
    ['"Bearer" with no token', () => 'Bearer ', undefined],
    ['"Bearer" with two tokens', () => 'Bearer a.b.c d.e.f', 'invalid_request'],
    ['a token that is not a JWT', () => 'Bearer not-a-jwt', 'invalid_token'],
    [
      'an expired token (beyond the clock tolerance)',
      () => bearer({ claims: { exp: nowSec() - 120 } }),
      'invalid_token',
    ],
    [
      'a not-yet-valid token (nbf beyond the tolerance)',
      () => bearer({ claims: { nbf: nowSec() + 300 } }),
      'invalid_token',
    ],
    ['a token without exp', () => bearer({ projectId: 'p', claims: { exp: undefined } }), 'invalid_token'],
    ['a wrong issuer', () => bearer({ claims: { iss: 'https://evil.example' } }), 'invalid_token'],
    ['no issuer', () => bearer({ claims: { iss: undefined } }), 'invalid_token'],
    ['no audience', () => bearer({ claims: { aud: undefined } }), 'invalid_token'],
    ['a wrong audience', () => bearer({ claims: { aud: 'someone-else' } }), 'invalid_token'],
    ['alg: none', () => bearer({ alg: 'none' }), 'invalid_token'],
    ['a wrong secret', () => bearer({ key: 'another-secret-that-is-32-bytes-long!!' }), 'invalid_token'],
    [
      'a tampered payload',
      () => {
        const [h, , s] = testToken().split('.');
        return `Bearer ${h}.${Buffer.from(JSON.stringify(claims({ iss: 'https://router.example', aud: 'catalog-search', projectId: 'project-b' }))).toString('base64url')}.${s}`;
      },
      'invalid_token',
    ],
    [
      'an RS256 token when the key is an HMAC secret',
      () => bearer({ alg: 'RS256', key: rsa.privateKey }),
      'invalid_token',
    ],
  ];

  for (const [name, authorization, oauthError] of bad) {
    it(`${name} → 401`, async () => {
      expectUnauthorized(await search(server.url, authorization()), oauthError);
      // The server keeps serving.
      expect((await search(server.url, bearer())).status).toBe(200);
    });
  }

  it('accepts HS384 and HS512 with the same secret, and exp/nbf within the clock tolerance', async () => {
    expect((await search(server.url, bearer({ alg: 'HS384' }))).status).toBe(200);
    expect((await search(server.url, bearer({ alg: 'HS512' }))).status).toBe(200);
    expect((await search(server.url, bearer({ claims: { exp: nowSec() - 10 } }))).status).toBe(200);
    expect((await search(server.url, bearer({ claims: { nbf: nowSec() + 10 } }))).status).toBe(200);
  });

  it('a token without the project claim → 403 FORBIDDEN', async () => {
    const response = await search(server.url, bearer({ claims: { projectId: undefined } }));
    expect(response.status).toBe(403);
    expect(response.json).toMatchObject({ code: 'FORBIDDEN' });
    const numeric = await search(server.url, bearer({ claims: { projectId: 42 } }));
    expect(numeric.status).toBe(403);
  });

  it('X-Project-Id must equal the claim: mismatch → 403, match → 200', async () => {
    const mismatch = await search(server.url, bearer(), { 'x-project-id': 'project-b' });
    expect(mismatch.status).toBe(403);
    expect(mismatch.json).toMatchObject({ code: 'FORBIDDEN' });
    expect(mismatch.json.detail).toContain('X-Project-Id');
    expect((await search(server.url, bearer(), { 'x-project-id': 'project-a' })).status).toBe(200);
  });

  it('"" and UNASSIGNED_PROJECT_ID are the same, unassigned project', async () => {
    const empty = await search(server.url, bearer({ claims: { projectId: '' } }), { 'x-request-id': 'unassigned-1' });
    expect(empty.status).toBe(200);
    const named = await search(server.url, bearer({ claims: { projectId: 'UNASSIGNED_PROJECT_ID' } }), {
      'x-project-id': '',
      'x-request-id': 'unassigned-2',
    });
    expect(named.status).toBe(200);
    const audits = server.logs.lines.filter(
      (line) => line.audit === 'search' && String(line.requestId).startsWith('unassigned-'),
    );
    expect(audits.map((line) => line.projectId)).toEqual(['UNASSIGNED_PROJECT_ID', 'UNASSIGNED_PROJECT_ID']);
    // ...and it is not any other project.
    expect(
      (await search(server.url, bearer({ claims: { projectId: '' } }), { 'x-project-id': 'project-a' })).status,
    ).toBe(403);
  });

  it('never logs the token', async () => {
    const token = testToken({ claims: { exp: nowSec() - 500 } });
    await search(server.url, `Bearer ${token}`);
    const signature = token.split('.')[2]!;
    expect(server.logs.raw.join('\n')).not.toContain(signature);
  });
});

describe('PEM public keys: algorithms pinned to the key type', () => {
  const keyPairs = {
    rsa: generateKeyPairSync('rsa', { modulusLength: 2048 }),
    ec256: generateKeyPairSync('ec', { namedCurve: 'P-256' }),
    ec384: generateKeyPairSync('ec', { namedCurve: 'P-384' }),
    ed25519: generateKeyPairSync('ed25519'),
  };
  const pem = (key: KeyObject) => key.export({ type: 'spki', format: 'pem' }).toString();
  const auth = (publicKey: KeyObject): Partial<AuthConfig> => ({
    key: { kind: 'public-key', pem: pem(publicKey), algorithms: algorithmsForKey(publicKey)! },
  });

  it('RSA key: RS256/RS512/PS256 pass; HS256 signed with the public key, alg none and ES256 fail', async () => {
    const { publicKey, privateKey } = keyPairs.rsa;
    const server = await startApp(testConfig({ auth: auth(publicKey) }));
    try {
      expect((await search(server.url, bearer({ alg: 'RS256', key: privateKey }))).status).toBe(200);
      expect((await search(server.url, bearer({ alg: 'RS512', key: privateKey }))).status).toBe(200);
      expect((await search(server.url, bearer({ alg: 'PS256', key: privateKey }))).status).toBe(200);
      // The classic confusion attack: the public key used as an HMAC secret.
      expectUnauthorized(await search(server.url, bearer({ alg: 'HS256', key: pem(publicKey) })), 'invalid_token');
      expectUnauthorized(
        await search(server.url, bearer({ alg: 'HS256', key: publicKey.export({ type: 'spki', format: 'der' }) })),
        'invalid_token',
      );
      expectUnauthorized(await search(server.url, bearer({ alg: 'none' })), 'invalid_token');
      expectUnauthorized(
        await search(server.url, bearer({ alg: 'ES256', key: keyPairs.ec256.privateKey })),
        'invalid_token',
      );
      // Signed by another RSA key.
      expectUnauthorized(
        await search(
          server.url,
          bearer({ alg: 'RS256', key: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey }),
        ),
        'invalid_token',
      );
      expect((await search(server.url, bearer({ alg: 'RS256', key: privateKey }))).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('EC P-256 key accepts only ES256; P-384 only ES384; Ed25519 only EdDSA', async () => {
    const cases: [keyof typeof keyPairs, TestAlg, TestAlg][] = [
      ['ec256', 'ES256', 'ES384'],
      ['ec384', 'ES384', 'ES256'],
      ['ed25519', 'EdDSA', 'ES256'],
    ];
    for (const [name, okAlg, badAlg] of cases) {
      const { publicKey, privateKey } = keyPairs[name];
      const server = await startApp(testConfig({ auth: auth(publicKey) }));
      try {
        expect((await search(server.url, bearer({ alg: okAlg, key: privateKey }))).status, `${name} ${okAlg}`).toBe(
          200,
        );
        const other = badAlg === 'ES256' ? keyPairs.ec256.privateKey : keyPairs.ec384.privateKey;
        expectUnauthorized(await search(server.url, bearer({ alg: badAlg, key: other })), 'invalid_token');
        expectUnauthorized(await search(server.url, bearer({ alg: 'HS256', key: pem(publicKey) })), 'invalid_token');
      } finally {
        await server.close();
      }
    }
  });
});

describe('JWKS over a real loopback HTTP server: keys by kid, cached, rotated', () => {
  const first = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const second = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  let published: { kid: string; key: KeyObject; alg: string }[] = [
    { kid: 'key-1', key: first.publicKey, alg: 'RS256' },
  ];
  let fetches = 0;
  let jwksDown = false;
  let jwksServer: Server;
  let server: RunningApp;

  beforeAll(async () => {
    jwksServer = createServer((request, response) => {
      fetches += 1;
      if (jwksDown || request.url !== '/auth/keys.json') {
        response.writeHead(jwksDown ? 503 : 404, { 'content-type': 'application/json' }).end('{}');
        return;
      }
      const keys = published.map(({ kid, key, alg }) => ({ ...key.export({ format: 'jwk' }), kid, alg, use: 'sig' }));
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys }));
    });
    await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
    const { port } = jwksServer.address() as AddressInfo;
    server = await startApp(
      testConfig({
        auth: {
          key: {
            kind: 'jwks',
            url: `http://127.0.0.1:${port}/auth/keys.json`,
            algorithms: ASYMMETRIC_ALGORITHMS,
            cacheTtlMs: 60_000,
            minRefetchMs: 0,
          },
        },
      }),
    );
  });
  afterAll(async () => {
    await server.close();
    await new Promise((resolve) => jwksServer.close(resolve));
  });

  it('verifies by kid, caches the key, picks up a rotated key, and rejects unknown, missing and forged kids', async () => {
    expect(
      (await search(server.url, bearer({ alg: 'RS256', key: first.privateKey, header: { kid: 'key-1' } }))).status,
    ).toBe(200);
    expect(
      (await search(server.url, bearer({ alg: 'RS256', key: first.privateKey, header: { kid: 'key-1' } }))).status,
    ).toBe(200);
    expect(fetches).toBe(1); // cached

    // Rotation: the issuer publishes key-2 and starts signing with it.
    published = [{ kid: 'key-2', key: second.publicKey, alg: 'ES256' }, ...published];
    expect(
      (await search(server.url, bearer({ alg: 'ES256', key: second.privateKey, header: { kid: 'key-2' } }))).status,
    ).toBe(200);
    expect(fetches).toBe(2);

    // A kid nobody published (the fetch throttle is covered in jwks-resolver.test.ts).
    expectUnauthorized(
      await search(server.url, bearer({ alg: 'ES256', key: second.privateKey, header: { kid: 'key-x' } })),
      'invalid_token',
    );

    // No kid; HS256 with the RSA public key as secret; alg none; right kid but the wrong key's signature.
    expectUnauthorized(await search(server.url, bearer({ alg: 'RS256', key: first.privateKey })), 'invalid_token');
    const pem = first.publicKey.export({ type: 'spki', format: 'pem' }).toString();
    expectUnauthorized(
      await search(server.url, bearer({ alg: 'HS256', key: pem, header: { kid: 'key-1' } })),
      'invalid_token',
    );
    expectUnauthorized(await search(server.url, bearer({ alg: 'none', header: { kid: 'key-1' } })), 'invalid_token');
    expectUnauthorized(
      await search(
        server.url,
        bearer({
          alg: 'RS256',
          key: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey,
          header: { kid: 'key-1' },
        }),
      ),
      'invalid_token',
    );

    // The old key still works while it is published and cached.
    expect(
      (await search(server.url, bearer({ alg: 'RS256', key: first.privateKey, header: { kid: 'key-1' } }))).status,
    ).toBe(200);
  });

  it('a JWKS outage for an uncached kid → 503 AUTH_UNAVAILABLE with Retry-After, never a pass', async () => {
    jwksDown = true;
    const third = generateKeyPairSync('ed25519');
    const response = await search(
      server.url,
      bearer({ alg: 'EdDSA', key: third.privateKey, header: { kid: 'key-3' } }),
    );
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(response.json).toMatchObject({ code: 'AUTH_UNAVAILABLE' });
    // Cached keys keep working through the outage.
    expect(
      (await search(server.url, bearer({ alg: 'RS256', key: first.privateKey, header: { kid: 'key-1' } }))).status,
    ).toBe(200);
    jwksDown = false;
  });
});

describe('rate limiting per project', () => {
  it('429 problem+json with Retry-After once a project exceeds RATE_LIMIT_PER_MINUTE; other projects unaffected', async () => {
    const server = await startApp(testConfig({ rateLimitPerMinute: 3 }));
    try {
      for (let i = 0; i < 3; i += 1)
        expect((await search(server.url, bearer({ projectId: 'project-a' }))).status).toBe(200);
      const limited = await search(server.url, bearer({ projectId: 'project-a' }));
      expect(limited.status).toBe(429);
      expect(limited.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(limited.json).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
      expect((await search(server.url, bearer({ projectId: 'project-b' }))).status).toBe(200);
      // Unauthenticated requests are refused by auth, not counted against anyone.
      expectUnauthorized(await search(server.url, undefined), undefined);
    } finally {
      await server.close();
    }
  });
});
