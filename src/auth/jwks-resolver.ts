import { KeyObject } from 'node:crypto';
import { createRemoteJWKSet, customFetch, errors as joseErrors } from 'jose';
import type { JwtAlgorithm } from '../config/index.js';
import { ProblemError } from '../http/errors.js';

/**
 * Finds the verification key for a token's `kid` in a JWKS document, with jose's remote key set:
 * every fetch replaces the WHOLE set, so a refetch that anyone caused (even an attacker's random
 * `kid`) teaches every current key, and a key missing from a fresh fetch stops verifying at once.
 *
 * - Unknown `kid`: one refetch at most every `minRefetchMs` (jose's cooldown, counted from the last
 *   successful fetch); in between, unknown kids get 401 without a fetch. A freshly published key
 *   therefore verifies within about `minRefetchMs` whatever the traffic, even while random kids keep
 *   arriving (test/reliability/jwks.test.ts; figures: docs/operations.md#jwks); get-jwks's one key per
 *   kid behind a global gate was held shut by a trickle of random kids.
 * - Refresh: after `cacheTtlMs` the set is refetched in the background while the last good set keeps
 *   serving, so a slow or hung key server delays nobody (jose alone would make requests wait for
 *   the refetch at expiry, and fail them when it times out).
 * - A fetch that hangs is abandoned after `fetchTimeoutMs`; failed fetches are retried at most every
 *   `minRefetchMs`, so a dead key server is not hammered by unknown kids.
 * - 503 AUTH_UNAVAILABLE only when the token's key cannot be known: no set was ever fetched, or the
 *   kid is not in the last good set and the key server cannot be reached now.
 */
export interface JwksResolverOptions {
  url: string;
  algorithms: readonly JwtAlgorithm[];
  cacheTtlMs: number;
  /** Least time between refetches caused by unknown kids, and between retries after a failed fetch. */
  minRefetchMs: number;
  fetchTimeoutMs?: number;
  /** Accepted `iss` values (empty: any): a token from another issuer never causes a fetch. */
  issuers?: readonly string[];
  clockToleranceMs?: number;
}

export interface DecodedToken {
  header?: { alg?: unknown; kid?: unknown };
  payload?: unknown;
}

type JwksResolver = (token: DecodedToken) => Promise<string>;

const DEFAULT_FETCH_TIMEOUT_MS = 3000;

const invalidToken = (detail: string) =>
  new ProblemError('UNAUTHORIZED', detail, {
    headers: {
      'www-authenticate': `Bearer realm="catalog-search", error="invalid_token", error_description="${detail.replaceAll('"', "'")}"`,
    },
  });

const unavailable = () =>
  new ProblemError('AUTH_UNAVAILABLE', 'The signing keys (JWKS) could not be fetched; retry later.', {
    headers: { 'retry-after': '5' },
  });

export function createJwksResolver(options: JwksResolverOptions): JwksResolver {
  const { minRefetchMs, cacheTtlMs } = options;
  const issuers = options.issuers ?? [];
  const clockToleranceMs = options.clockToleranceMs ?? 0;
  let lastFailureAt = -Infinity;
  let lastRefreshAt = -Infinity;

  const keySet = createRemoteJWKSet(new URL(options.url), {
    timeoutDuration: options.fetchTimeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS,
    cooldownDuration: minRefetchMs,
    // Never "stale" to jose: the TTL refresh below runs in the background instead of blocking requests.
    cacheMaxAge: Infinity,
    [customFetch]: async (url: string, init: RequestInit) => {
      if (Date.now() - lastFailureAt < minRefetchMs) throw new Error('the last JWKS fetch failed; not retried yet');
      try {
        const response = await fetch(url, init);
        if (response.status === 200) lastRefreshAt = Date.now();
        else lastFailureAt = Date.now();
        return response;
      } catch (error) {
        lastFailureAt = Date.now();
        throw error;
      }
    },
  });
  // Keys as PEM: @fastify/jwt keeps one verifier per PEM string (with its verified-token cache).
  const pemOf = new WeakMap<object, string>();

  return async function resolveKey(token: DecodedToken): Promise<string> {
    const { alg, kid } = token.header ?? {};
    if (typeof alg !== 'string' || !(options.algorithms as readonly string[]).includes(alg)) {
      throw invalidToken('The token algorithm is not allowed.');
    }
    if (typeof kid !== 'string' || kid === '' || kid.length > 256) {
      throw invalidToken('The token header has no "kid"; it is required to pick the key from the JWKS.');
    }
    // A token that cannot pass the claim checks anyway never makes the service fetch keys.
    const payload = (token.payload ?? {}) as { iss?: unknown; exp?: unknown };
    if (issuers.length > 0 && !issuers.includes(payload.iss as string))
      throw invalidToken('The token issuer is not accepted.');
    if (typeof payload.exp !== 'number') throw invalidToken('The token has no "exp" claim.');
    if (payload.exp * 1000 + clockToleranceMs <= Date.now()) throw invalidToken('The token has expired.');

    if (keySet.jwks() !== undefined && Date.now() - lastRefreshAt >= cacheTtlMs && !keySet.reloading) {
      // The last good set keeps serving meanwhile; a failed refresh is retried by a later request.
      keySet.reload().catch(() => undefined);
    }
    let key: CryptoKey | KeyObject;
    try {
      key = await keySet({ alg, kid });
    } catch (error) {
      if (error instanceof joseErrors.JWKSNoMatchingKey) {
        throw invalidToken(
          'The token is signed with an unknown key (kid); if the key was just published, retry in a second.',
        );
      }
      if (error instanceof joseErrors.JOSENotSupported || error instanceof joseErrors.JWKSMultipleMatchingKeys) {
        throw invalidToken('The token key (kid) does not suit its algorithm.');
      }
      // The key server is down, hangs or answers garbage: not the caller's fault, and no reason to let it in.
      throw unavailable();
    }
    let pem = pemOf.get(key);
    if (pem === undefined) {
      const keyObject = key instanceof KeyObject ? key : KeyObject.from(key);
      pem = keyObject.export({ type: 'spki', format: 'pem' }).toString();
      pemOf.set(key, pem);
    }
    return pem;
  };
}
