// docker-compose.yml as a self-hoster runs it: configuration from an env file, the API on a loopback port,
// health from the image's HEALTHCHECK. Runs scripts/compose.sh as docs/self-hosting.md does (Compose v2 when present,
// else v1), with the offline Redis image.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../helpers/free-port.js';
import { composeRunner, docker, fetchWithin, sampleSearch, signHs256, waitForOk } from './helpers.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const project = `catalog-search-test-${process.pid}`;
const secret = randomBytes(32).toString('base64url');
const envDir = mkdtempSync(join(tmpdir(), 'catalog-search-compose-'));
let runCompose: Awaited<ReturnType<typeof composeRunner>> | undefined;
let composeEnv: NodeJS.ProcessEnv;
let baseUrl: string;

/** Two consecutive free loopback ports, for a range of one port per replica. */
async function twoFreePorts(): Promise<[number, number]> {
  const isFree = (port: number) =>
    new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
  for (;;) {
    const port = await freePort();
    if (port < 65_535 && (await isFree(port + 1))) return [port, port + 1];
  }
}

beforeAll(async () => {
  const envFile = join(envDir, 'test.env');
  // REDIS_TIMEOUT_MS 1 s: these tests are about sharing through Redis, not its timeouts. At the default
  // 100 ms, a restarted service's first commands timed out on a busy machine, Redis was then left alone for
  // 1 s, and the reference after the restart was answered 409 from the empty in-process store.
  writeFileSync(
    envFile,
    `AUTH_JWT_SECRET=${secret}\nLOG_LEVEL=warn\n# a comment, as in .env.example\nSEARCH_DEADLINE_MS=3000\nREDIS_TIMEOUT_MS=1000\n`,
  );
  const port = await freePort();
  const env = (composeEnv = {
    ...process.env,
    CATALOG_SEARCH_IMAGE: inject('image'),
    CATALOG_SEARCH_ENV_FILE: envFile,
    CATALOG_SEARCH_PORT: String(port),
  });
  runCompose = await composeRunner(project, env, repoRoot);
  // As documented: `scripts/compose.sh up -d` (the image exists, so nothing is built).
  const up = await runCompose(['up', '-d']);
  expect(up.code, up.stderr).toBe(0);
  baseUrl = `http://127.0.0.1:${port}`;
  await waitForOk(`${baseUrl}/readyz`, 30_000);
});

afterAll(async () => {
  if (runCompose) await runCompose(['down', '--volumes', '--timeout', '10']);
  rmSync(envDir, { recursive: true, force: true });
});

describe('docker compose up', () => {
  it('serves the API on the published loopback port with the key from the env file', async () => {
    const token = signHs256(secret, { projectId: 'compose-test' });
    const response = await fetchWithin(`${baseUrl}/v1/catalog/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(sampleSearch),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { results: Array<{ toolKey: string }> };
    expect(body.results[0]?.toolKey).toBe('github:create_issue');

    const anonymous = await fetchWithin(`${baseUrl}/v1/catalog/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(sampleSearch),
    });
    expect(anonymous.status).toBe(401);
  });

  it('keeps tool sets in the compose Redis: a reference still works after the service restarts', async () => {
    const token = signHs256(secret, { projectId: 'compose-redis' });
    const search = (body: unknown) =>
      fetchWithin(`${baseUrl}/v1/catalog/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      });
    const full = (await (await search(sampleSearch)).json()) as { meta: { toolSet: string } };
    const restart = await runCompose!(['restart', 'catalog-search']);
    expect(restart.code, restart.stderr).toBe(0);
    await waitForOk(`${baseUrl}/readyz`, 30_000);
    const byReference = await search({ query: sampleSearch.query, toolSet: full.meta.toolSet });
    expect(byReference.status).toBe(200);
  });

  it('keeps what projects taught across restarts of its Redis and the service (AOF in a named volume)', async () => {
    const token = signHs256(secret, { projectId: 'compose-learning' });
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
    // A request that shares no word with the sample tools: only what the project taught can rank one.
    const request = { ...sampleSearch, query: ['jot the squad retro takeaways'] };
    const search = async () =>
      (await (
        await fetchWithin(`${baseUrl}/v1/catalog/search`, { method: 'POST', headers, body: JSON.stringify(request) })
      ).json()) as { results: Array<{ toolKey: string }>; meta: { learning?: string } };
    for (const query of [
      'jot retro takeaways for the squad',
      'jot our squad retro takeaways',
      'jot down retro takeaways',
    ]) {
      const report = await fetchWithin(`${baseUrl}/v1/catalog/feedback`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ events: [{ query: [query], toolKey: 'slack:post_message', outcome: 'succeeded' }] }),
      });
      expect(report.status).toBe(202);
    }
    expect((await search()).meta.learning).toBe('raised');

    // Redis restarted (`docker compose restart redis`), then the service (an empty process): only what
    // Redis kept on its volume can teach it.
    const redisId = (await runCompose!(['ps', '--quiet', 'redis'], 30_000)).stdout.trim();
    const mounts = JSON.parse(await docker(['inspect', '--format', '{{json .Mounts}}', redisId])) as Array<{
      Type: string;
      Destination: string;
    }>;
    expect(mounts).toContainEqual(expect.objectContaining({ Type: 'volume', Destination: '/data' }));
    for (const service of ['redis', 'catalog-search']) {
      const restart = await runCompose!(['restart', service], 60_000);
      expect(restart.code, restart.stderr).toBe(0);
    }
    await waitForOk(`${baseUrl}/readyz`, 30_000);
    // Ready before its Redis connection is: a few seconds at most.
    let after = await search();
    for (let tries = 0; tries < 100 && after.meta.learning === undefined; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      after = await search();
    }
    expect(after.meta.learning).toBe('raised');
    expect(after.results[0]!.toolKey).toBe('slack:post_message');
  }, 120_000);

  it('runs the service locked down, and the image health check reports it healthy', async () => {
    const ps = await runCompose!(['ps', '--quiet', 'catalog-search'], 30_000);
    const id = ps.stdout.trim();
    expect(id).toMatch(/^[0-9a-f]{12,}$/);
    const hostConfig = JSON.parse(await docker(['inspect', '--format', '{{json .HostConfig}}', id]));
    expect(hostConfig.ReadonlyRootfs).toBe(true);
    expect(hostConfig.CapDrop).toEqual(['ALL']);
    expect(Object.keys(hostConfig.Tmpfs)).toEqual(['/tmp']);
    expect(hostConfig.PortBindings['8080/tcp'][0].HostIp).toBe('127.0.0.1');
    // An init as PID 1 and a hard memory limit (768m by default).
    expect(hostConfig.Init).toBe(true);
    expect(hostConfig.Memory).toBe(768 * 2 ** 20);

    // The first health check runs one interval (10 s) after start.
    const deadline = Date.now() + 40_000;
    let health = '';
    while (Date.now() < deadline) {
      health = await docker(['inspect', '--format', '{{.State.Health.Status}}', id]);
      if (health !== 'starting') break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(health).toBe('healthy');
  });

  // As docs/self-hosting.md says: a range of N ports and --scale catalog-search=N (a single port made the
  // second replica fail: "port is already allocated").
  it('scales to two replicas on a port range, which share tool sets through the compose Redis', async () => {
    const [first, second] = await twoFreePorts();
    const scaled = await composeRunner(project, { ...composeEnv, CATALOG_SEARCH_PORT: `${first}-${second}` }, repoRoot);
    const up = await scaled(['up', '-d', '--scale', 'catalog-search=2'], 120_000);
    expect(up.code, up.stderr).toBe(0);
    const urls = await Promise.all(
      [1, 2].map(async (index) => {
        const port = await scaled(['port', `--index=${index}`, 'catalog-search', '8080']);
        expect(port.code, port.stderr).toBe(0);
        return `http://${port.stdout.trim()}`;
      }),
    );
    expect(urls.sort()).toEqual([`http://127.0.0.1:${first}`, `http://127.0.0.1:${second}`]);
    for (const url of urls) await waitForOk(`${url}/readyz`, 60_000);

    const token = signHs256(secret, { projectId: 'compose-scaled' });
    const search = (url: string, body: unknown) =>
      fetchWithin(`${url}/v1/catalog/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      });
    const full = (await (await search(urls[0]!, sampleSearch)).json()) as { meta: { toolSet: string } };
    const byReference = await search(urls[1]!, { query: sampleSearch.query, toolSet: full.meta.toolSet });
    expect(byReference.status).toBe(200);
  }, 180_000);
});
