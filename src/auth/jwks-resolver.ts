import buildGetJwks from 'get-jwks';
import { ProblemError } from '../errors.js';
import type { JwtAlgorithm } from '../config.js';

/**
 * Finds the verification key for a token's `kid` in a JWKS document. Keys are cached (get-jwks,
 * TTL from config); a `kid` that is not cached triggers one fetch, so a rotated key is picked up
 * on first use. To stop random `kid`s from turning each request into a JWKS fetch, fetches for
 * not-yet-cached kids are spaced at least `unknownKidIntervalMs` apart; in between, uncached kids
 * are refused without a fetch.
 */
export interface JwksResolverOptions {
  url: string;
  algorithms: readonly JwtAlgorithm[];
  cacheTtlMs: number;
  fetchTimeoutMs?: number;
  unknownKidIntervalMs?: number;
  now?: () => number;
}

export interface TokenHeader {
  alg?: unknown;
  kid?: unknown;
}

export type JwksResolver = (header: TokenHeader) => Promise<string>;

const invalidToken = (detail: string) =>
  new ProblemError('UNAUTHORIZED', detail, {
    headers: { 'www-authenticate': `Bearer realm="catalog-search", error="invalid_token", error_description="${detail.replaceAll('"', "'")}"` },
  });

export function createJwksResolver(options: JwksResolverOptions): JwksResolver {
  const url = new URL(options.url);
  const domain = url.origin;
  const fetchTimeoutMs = options.fetchTimeoutMs ?? 3000;
  const unknownKidIntervalMs = options.unknownKidIntervalMs ?? 1000;
  const now = options.now ?? Date.now;
  const jwks = buildGetJwks({
    max: 100,
    ttl: options.cacheTtlMs,
    jwksPath: `${url.pathname}${url.search}`,
  });
  let lastUncachedFetchAt = -Infinity;

  return async function resolveKey(header: TokenHeader): Promise<string> {
    const { alg, kid } = header;
    if (typeof alg !== 'string' || !(options.algorithms as readonly string[]).includes(alg)) {
      throw invalidToken('The token algorithm is not allowed.');
    }
    if (typeof kid !== 'string' || kid === '' || kid.length > 256) {
      throw invalidToken('The token header has no "kid"; it is required to pick the key from the JWKS.');
    }
    const cached = jwks.cache.get(jwks.generateCacheKey(alg, kid, `${domain}/`)) !== undefined;
    if (!cached) {
      const at = now();
      if (at - lastUncachedFetchAt < unknownKidIntervalMs) {
        throw invalidToken('The token is signed with a key (kid) that is not known yet; retry shortly.');
      }
      lastUncachedFetchAt = at;
    }
    try {
      return await withTimeout(jwks.getPublicKey({ domain, alg, kid }), fetchTimeoutMs);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === 'JWK_NOT_FOUND') {
        throw invalidToken('The token is signed with an unknown key (kid).');
      }
      // The key server is down or answers garbage: not the caller's fault, and not a reason to let it in.
      throw new ProblemError('AUTH_UNAVAILABLE', 'The signing keys (JWKS) could not be fetched; retry later.', {
        headers: { 'retry-after': '5' },
      });
    }
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`JWKS fetch timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
