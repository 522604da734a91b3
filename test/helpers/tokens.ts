import { createHmac, createPrivateKey, sign, type KeyObject } from 'node:crypto';
import type { JwtAlgorithm } from '../../src/config/index.js';
import { TEST_SECRET } from './app.js';

/**
 * Signs JWTs with node:crypto directly (not with the library under test), so tests can craft every
 * kind of bad token: wrong algorithm, `alg: none`, HS signed with a public key, missing claims.
 */
export type TestAlg = JwtAlgorithm | 'none';

const b64url = (input: string | Buffer) => Buffer.from(input).toString('base64url');
const nowSec = () => Math.floor(Date.now() / 1000);

export interface SignOptions {
  alg: TestAlg;
  /** HMAC secret (string/Buffer) or private key (PEM / KeyObject). Ignored for `none`. */
  key?: string | Buffer | KeyObject;
  header?: Record<string, unknown>;
}

export function signJwt(payload: Record<string, unknown>, options: SignOptions): string {
  const header = { alg: options.alg, typ: 'JWT', ...options.header };
  const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(payload))}`;
  return `${input}.${signature(input, options)}`;
}

function signature(input: string, { alg, key }: SignOptions): string {
  if (alg === 'none') return '';
  if (key === undefined) throw new Error(`signJwt: ${alg} needs a key`);
  const bits = alg.slice(2);
  if (alg.startsWith('HS')) {
    const secret = typeof key === 'string' || Buffer.isBuffer(key) ? key : key.export();
    return createHmac(`sha${bits}`, secret).update(input).digest('base64url');
  }
  const privateKey = typeof key === 'string' || Buffer.isBuffer(key) ? createPrivateKey(key) : key;
  if (alg === 'EdDSA') return sign(null, Buffer.from(input), privateKey).toString('base64url');
  if (alg.startsWith('RS')) return sign(`sha${bits}`, Buffer.from(input), privateKey).toString('base64url');
  if (alg.startsWith('PS')) {
    return sign(`sha${bits}`, Buffer.from(input), {
      key: privateKey,
      padding: 6,
      saltLength: Number(bits) / 8,
    }).toString('base64url');
  }
  // ES*: JOSE wants the raw r||s form, not DER.
  return sign(`sha${bits}`, Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url');
}

/** Standard claims for a valid token, valid for 10 minutes. */
export function claims(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { sub: 'router-user', iat: nowSec(), exp: nowSec() + 600, projectId: 'project-a', ...extra };
}

export { nowSec };

/** What a test token varies; everything else is a valid token for testConfig()'s issuer and audience. */
export interface TestTokenOptions {
  /** The tenant (projectId claim); default `project-a`, as in `claims()`. */
  projectId?: string;
  /** Claims added or overridden (iss, aud, exp, sub...); a claim set to `undefined` is left out of the token. */
  claims?: Record<string, unknown>;
  /** Seconds until `exp` (negative for an expired token); default 600. */
  expiresInSec?: number;
  /** Default HS256 with TEST_SECRET (test/helpers/app.ts), the key testConfig() trusts. */
  alg?: TestAlg;
  key?: SignOptions['key'];
  header?: Record<string, unknown>;
}

/** The one way tests sign a token for a project: a valid HS256 token for testConfig() unless told otherwise. */
export function testToken(options: TestTokenOptions = {}): string {
  const payload = claims({
    iss: 'https://router.example',
    aud: 'catalog-search',
    ...(options.projectId === undefined ? {} : { projectId: options.projectId }),
    ...(options.expiresInSec === undefined ? {} : { exp: nowSec() + options.expiresInSec }),
    ...options.claims,
  });
  for (const [name, value] of Object.entries(payload)) if (value === undefined) delete payload[name];
  return signJwt(payload, {
    alg: options.alg ?? 'HS256',
    key: options.key ?? TEST_SECRET,
    ...(options.header ? { header: options.header } : {}),
  });
}

/** `Bearer <testToken(options)>`, the Authorization header value. */
export const bearer = (options: TestTokenOptions = {}): string => `Bearer ${testToken(options)}`;
