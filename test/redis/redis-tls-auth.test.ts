// REDIS_URL with TLS and a password, as a managed Redis wants it: rediss://user:password@host.
// A real redis-server serving TLS only (a certificate made at run time with openssl) and requiring
// a password; the service as a child process trusting the certificate through NODE_EXTRA_CA_CERTS.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_SECRET } from '../helpers/app.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import { startServiceProcess, type ServiceProcess } from '../helpers/service-process.js';
import { testToken } from '../helpers/tokens.js';
import { sampleRequest } from '../fixtures/tools.js';
import { searchAs } from '../helpers/search.js';

const PASSWORD = 'redis-test-password';
const dir = mkdtempSync(join(tmpdir(), 'redis-tls-'));
const certFile = join(dir, 'cert.pem');
const keyFile = join(dir, 'key.pem');
let redis: TestRedis;
const services: ServiceProcess[] = [];

beforeAll(async () => {
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost',
    ],
    { stdio: 'ignore' },
  );
  redis = await startTestRedis({ password: PASSWORD, tls: { certFile, keyFile } });
}, 30_000);
afterAll(async () => {
  await Promise.all(services.map((service) => service.stop()));
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

// REDIS_TIMEOUT_MS 2 s: with the default, a command on a busy 2-core machine timed out now and then
// (a fallback where the test expects none, or a timeout logged before the WRONGPASS warning).
// METRICS_ENABLED: read from the API port, which production serves metrics on only when told to.
const start = (url: string) =>
  startServiceProcess({
    AUTH_JWT_SECRET: TEST_SECRET,
    REDIS_URL: url,
    NODE_EXTRA_CA_CERTS: certFile,
    RATE_LIMIT_PER_MINUTE: '100',
    METRICS_ENABLED: 'true',
    REDIS_TIMEOUT_MS: '2000',
  }).then((service) => {
    services.push(service);
    return service;
  });

async function searchAndScrape(service: ServiceProcess): Promise<{ statuses: number[]; fallbacks: number }> {
  const token = testToken({ projectId: 'tls-project' });
  const statuses: number[] = [];
  for (let at = 0; at < 3; at += 1) {
    statuses.push((await searchAs(service, { ...sampleRequest, query: [`search ${at}`] }, { token })).status);
  }
  const text = await (await fetch(`${service.url}/metrics`)).text();
  const fallbacks = text
    .split('\n')
    .filter((line) => line.startsWith('catalog_search_redis_fallbacks_total{'))
    .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
  return { statuses, fallbacks };
}

describe('REDIS_URL with TLS and a password', () => {
  it('connects over TLS with the password from the URL and uses Redis for every search', async () => {
    const service = await start(redis.url.replace('rediss://', `rediss://default:${PASSWORD}@`));
    // Connected before searching: the first commands must not race the TLS handshake.
    for (
      let wait = 0;
      wait < 100 && !service.logs.some((line) => String(line.msg).startsWith('Redis connected'));
      wait += 1
    ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const { statuses, fallbacks } = await searchAndScrape(service);
    expect(statuses).toEqual([200, 200, 200]);
    expect(fallbacks).toBe(0);
  }, 30_000);

  it('with a wrong password still answers every search, in process, and says why in the log', async () => {
    const service = await start(redis.url.replace('rediss://', 'rediss://default:wrong@'));
    const { statuses, fallbacks } = await searchAndScrape(service);
    expect(statuses).toEqual([200, 200, 200]);
    expect(fallbacks).toBeGreaterThan(0);
    // The connection's error line says why. Not necessarily the first Redis warning: a search that came
    // before the refused handshake was logged warns that Redis was not used (Node 24 in CI, once).
    const isError = (line: { level?: unknown; msg?: unknown }) =>
      line.level === 40 && String(line.msg).startsWith('Redis connection error');
    for (let wait = 0; wait < 100 && !service.logs.some(isError); wait += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(JSON.stringify(service.logs.find(isError))).toMatch(/WRONGPASS|invalid username-password/i);
    // The password never reaches the logs.
    expect(JSON.stringify(service.logs)).not.toContain('wrong@');
  }, 30_000);
});
