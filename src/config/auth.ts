// AUTH_*: which key verifies tokens and the algorithms it allows. Exactly one key source may be set;
// a public key pins the algorithms to its type, so an HS token signed with the public key cannot pass.
import { createPublicKey, type KeyObject } from 'node:crypto';
import type { EnvReader } from './env-reader.js';
import { isHttpUrl } from './http-url.js';
import type { AuthConfig, AuthKey, JwtAlgorithm } from './types.js';

/** A project claim of `""` or this names the unassigned project (src/auth/project.ts). */
export const UNASSIGNED_PROJECT_ID = 'UNASSIGNED_PROJECT_ID';

export const HMAC_ALGORITHMS: readonly JwtAlgorithm[] = ['HS256', 'HS384', 'HS512'];
const RSA_ALGORITHMS: readonly JwtAlgorithm[] = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'];
const PSS_ALGORITHMS: readonly JwtAlgorithm[] = ['PS256', 'PS384', 'PS512'];
/** JWKS keys can be of any asymmetric type; each key is still checked against its own type. */
export const ASYMMETRIC_ALGORITHMS: readonly JwtAlgorithm[] = [...RSA_ALGORITHMS, 'ES256', 'ES384', 'ES512', 'EdDSA'];

/** The token key and checks; undefined when no key is set (outside production: server.ts makes one). */
export function parseAuth(read: EnvReader, production: boolean, problems: string[]): AuthConfig | undefined {
  const secret = read.secret('AUTH_JWT_SECRET');
  const publicKey = read.optionalString('AUTH_JWT_PUBLIC_KEY');
  const jwksUrl = read.optionalString('AUTH_JWKS_URL');
  const issuers = read.list('AUTH_ISSUER');
  const audiences = read.list('AUTH_AUDIENCE');
  const projectClaim = read.string('AUTH_PROJECT_CLAIM');
  const clockToleranceSec = read.integer('AUTH_CLOCK_TOLERANCE_SEC');
  const jwksCacheTtlSec = read.integer('AUTH_JWKS_CACHE_TTL_SEC');
  const jwksMinRefetchMs = read.integer('AUTH_JWKS_MIN_REFETCH_MS');

  const given = [
    ['AUTH_JWT_SECRET', secret],
    ['AUTH_JWT_PUBLIC_KEY', publicKey],
    ['AUTH_JWKS_URL', jwksUrl],
  ].filter(([, value]) => value !== undefined);
  if (given.length > 1) {
    problems.push(`${given.map(([name]) => name).join(', ')}: set exactly one token key source, not ${given.length}`);
    return undefined;
  }
  if (given.length === 0) {
    if (production) {
      problems.push(
        'AUTH_JWT_SECRET, AUTH_JWT_PUBLIC_KEY or AUTH_JWKS_URL: one is required when NODE_ENV=production ' +
          '(the key that verifies the Router-issued bearer tokens)',
      );
    }
    return undefined;
  }

  let key: AuthKey | undefined;
  if (secret !== undefined) {
    // RFC 7518 §3.2: an HS256 key must be at least as long as the hash output (256 bits).
    if (Buffer.byteLength(secret) < 32) problems.push('AUTH_JWT_SECRET: must be at least 32 bytes long');
    else key = { kind: 'secret', secret, algorithms: HMAC_ALGORITHMS };
  } else if (publicKey !== undefined) {
    key = parsePublicKey(publicKey, problems);
  } else if (jwksUrl !== undefined) {
    if (!isHttpUrl(jwksUrl)) problems.push(`AUTH_JWKS_URL: must be an http(s) URL (got "${jwksUrl}")`);
    else
      key = {
        kind: 'jwks',
        url: jwksUrl,
        algorithms: ASYMMETRIC_ALGORITHMS,
        cacheTtlMs: jwksCacheTtlSec * 1000,
        minRefetchMs: jwksMinRefetchMs,
      };
  }
  if (!/^[A-Za-z0-9_.:-]{1,100}$/.test(projectClaim)) {
    problems.push(`AUTH_PROJECT_CLAIM: must be a claim name of letters, digits, "_.:-" (got "${projectClaim}")`);
  }
  return key === undefined
    ? undefined
    : { key, issuers, audiences, projectClaim, clockToleranceMs: clockToleranceSec * 1000 };
}

/** A PEM public key pins the algorithms to its type, so an HS token signed with the public key cannot pass. */
function parsePublicKey(value: string, problems: string[]): AuthKey | undefined {
  // Env files and secret stores often carry newlines as the two characters "\n".
  const pem = value.includes('\\n') ? value.replaceAll('\\n', '\n') : value;
  let keyObject: KeyObject;
  try {
    keyObject = createPublicKey(pem);
  } catch {
    problems.push('AUTH_JWT_PUBLIC_KEY: not a PEM public key (expected "-----BEGIN PUBLIC KEY-----")');
    return undefined;
  }
  const algorithms = algorithmsForKey(keyObject);
  if (algorithms === undefined) {
    problems.push(
      `AUTH_JWT_PUBLIC_KEY: unsupported key type "${keyObject.asymmetricKeyType}" (use RSA, EC P-256/384/521 or Ed25519)`,
    );
    return undefined;
  }
  return { kind: 'public-key', pem: keyObject.export({ type: 'spki', format: 'pem' }).toString(), algorithms };
}

export function algorithmsForKey(key: KeyObject): readonly JwtAlgorithm[] | undefined {
  switch (key.asymmetricKeyType) {
    case 'rsa':
      return RSA_ALGORITHMS;
    case 'rsa-pss':
      return PSS_ALGORITHMS;
    case 'ed25519':
      return ['EdDSA'];
    case 'ec': {
      const curve = key.asymmetricKeyDetails?.namedCurve;
      if (curve === 'prime256v1') return ['ES256'];
      if (curve === 'secp384r1') return ['ES384'];
      if (curve === 'secp521r1') return ['ES512'];
      return undefined;
    }
    default:
      return undefined;
  }
}
