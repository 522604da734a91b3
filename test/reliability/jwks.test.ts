// JWKS mode under attack and under a flaky key server (issue #12): a flood of random `kid`s must not
// lock out a newly published key, a removed key must stop verifying after the next refetch, and a
// key server that hangs at refresh time must cause no 503 for tokens whose key is known.
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { JwksServer, newSigningKey, signWith } from '../helpers/jwks-server.js';
import { report, search, startService, stopAll } from './scenario.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let jwks: JwksServer;
beforeAll(async () => {
  jwks = await new JwksServer().start();
});
afterEach(async () => {
  await stopAll();
  jwks.published.clear();
  jwks.delayMs = 0;
  jwks.down = false;
});
afterAll(() => jwks.close());

const jwksEnv = (extra: Record<string, string> = {}) => ({ AUTH_JWT_SECRET: '', AUTH_JWKS_URL: jwks.url, ...extra });

describe('JWKS mode', () => {
  it('a flood of random kids (20 req/s) does not lock out a newly published key', async () => {
    const known = jwks.publish(newSigningKey('known'));
    const service = await startService(jwksEnv({ AUTH_JWKS_MIN_REFETCH_MS: '1000' }));
    expect(await search(service.url, signWith(known))).toBe(200);
    const attackerKey = newSigningKey('attacker');

    let flooding = true;
    const floodStatuses: number[] = [];
    const flood = (async () => {
      while (flooding) {
        void search(service.url, signWith({ ...attackerKey, kid: randomUUID() })).then((status) =>
          floodStatuses.push(status),
        );
        await sleep(50);
      }
    })();
    await sleep(1000);
    const fetchesBefore = jwks.fetches;
    const rotated = jwks.publish(newSigningKey('rotated'));
    const publishedAt = Date.now();
    let firstOkAfterMs: number | undefined;
    let rotatedFailuresAfterFirstOk = 0;
    // Whoever caused it, the first refetch after publication must teach the new key (the old resolver
    // only learnt a kid from a fetch that this kid itself triggered).
    let rotatedFailuresAfterRefetch = 0;
    let knownFailures = 0;
    while (Date.now() - publishedAt < 4000) {
      const sentAt = Date.now();
      const [rotatedStatus, knownStatus] = await Promise.all([
        search(service.url, signWith(rotated)),
        search(service.url, signWith(known)),
      ]);
      const refetchedAt = jwks.fetchedAt.find((at) => at > publishedAt);
      if (rotatedStatus === 200) firstOkAfterMs ??= Date.now() - publishedAt;
      else {
        if (firstOkAfterMs !== undefined) rotatedFailuresAfterFirstOk += 1;
        if (refetchedAt !== undefined && sentAt > refetchedAt + 100) rotatedFailuresAfterRefetch += 1;
      }
      if (knownStatus !== 200) knownFailures += 1;
      await sleep(250);
    }
    flooding = false;
    await flood;
    await sleep(200);
    const fetches = jwks.fetches - fetchesBefore;
    report('jwks lockout', {
      floodRequests: floodStatuses.length,
      flood401: floodStatuses.filter((status) => status === 401).length,
      rotatedKeyFirstVerifiedAfterMs: firstOkAfterMs,
      rotatedFailuresAfterFirstOk,
      rotatedFailuresAfterFirstRefetch: rotatedFailuresAfterRefetch,
      knownKeyFailures: knownFailures,
      jwksFetchesIn4s: fetches,
    });
    expect(floodStatuses.every((status) => status === 401)).toBe(true);
    expect(firstOkAfterMs, 'the new key verifies within a few seconds').toBeLessThan(2500);
    expect(rotatedFailuresAfterFirstOk).toBe(0);
    expect(rotatedFailuresAfterRefetch).toBe(0);
    expect(knownFailures).toBe(0);
    expect(fetches, 'refetches stay throttled (about one a second)').toBeLessThanOrEqual(6);
  });

  it('a key removed from the JWKS stops verifying after the next refetch', async () => {
    const removed = jwks.publish(newSigningKey('removed'));
    const kept = jwks.publish(newSigningKey('kept'));
    const service = await startService(jwksEnv({ AUTH_JWKS_CACHE_TTL_SEC: '1', AUTH_JWKS_MIN_REFETCH_MS: '500' }));
    const token = signWith(removed); // the same token throughout: no verified-token cache may keep it alive
    expect(await search(service.url, token)).toBe(200);
    jwks.remove(removed);
    const removedAt = Date.now();
    const fetchesAtRemoval = jwks.fetches;
    let rejectedAfterMs: number | undefined;
    while (Date.now() - removedAt < 5000) {
      if ((await search(service.url, token)) === 401) {
        rejectedAfterMs = Date.now() - removedAt;
        break;
      }
      await sleep(50);
    }
    const later: number[] = [];
    for (let i = 0; i < 10; i += 1) later.push(await search(service.url, i % 2 === 0 ? token : signWith(removed)));
    const keptStatus = await search(service.url, signWith(kept));
    report('jwks revocation', {
      cacheTtlMs: 1000,
      rejectedAfterMs,
      refetchesUntilRejected: jwks.fetches - fetchesAtRemoval,
      laterStatuses: [...new Set(later)],
      keptStatus,
    });
    expect(rejectedAfterMs, 'rejected after the next refetch (TTL 1 s)').toBeLessThan(2500);
    expect(later.every((status) => status === 401)).toBe(true);
    expect(keptStatus).toBe(200);
  });

  it('a JWKS that hangs for 1.5 s when the cache expires causes no 503 for known keys', async () => {
    const known = jwks.publish(newSigningKey('known'));
    const service = await startService(jwksEnv({ AUTH_JWKS_CACHE_TTL_SEC: '1', AUTH_JWKS_MIN_REFETCH_MS: '500' }));
    expect(await search(service.url, signWith(known))).toBe(200);
    await sleep(1000); // the TTL has passed: the next request starts a refresh
    jwks.delayMs = 1500;
    const fetchesBefore = jwks.fetches;
    const statuses: number[] = [];
    const latencies: number[] = [];
    const started = Date.now();
    while (Date.now() - started < 4000) {
      const sent = Date.now();
      statuses.push(await search(service.url, signWith(known)));
      latencies.push(Date.now() - sent);
      if (Date.now() - started > 2000) jwks.delayMs = 0;
      await sleep(50);
    }
    const sorted = [...latencies].sort((a, b) => a - b);
    report('jwks hang', {
      requests: statuses.length,
      non200: statuses.filter((status) => status !== 200).length,
      status503: statuses.filter((status) => status === 503).length,
      p50Ms: sorted[Math.floor(sorted.length / 2)],
      maxMs: sorted.at(-1),
      jwksFetchesDuringHang: jwks.fetches - fetchesBefore,
    });
    expect(jwks.fetches - fetchesBefore, 'a refresh did hit the hanging key server').toBeGreaterThan(0);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    expect(sorted.at(-1), 'no request waited for the hung fetch').toBeLessThan(1000);
  });
});
