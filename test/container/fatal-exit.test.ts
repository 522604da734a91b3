// A heap overflow ends the container with a non-zero code, and compose restarts it (issue #12). The
// overflow is provoked without test-only code in the image: the heap is capped small with
// NODE_OPTIONS=--max-old-space-size (an operator setting) and a few maximal, legitimate searches are sent.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../helpers/free-port.js';
import { composeRunner, docker, fetchWithin, maximalSearch, run, signHs256, waitForOk } from './helpers.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const image = inject('image');
const secret = randomBytes(32).toString('base64url');
/** Enough to start and serve small searches; a few maximal searches at once do not fit. */
const SMALL_HEAP_MB = 64;
const envDir = mkdtempSync(join(tmpdir(), 'catalog-search-fatal-'));
const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  rmSync(envDir, { recursive: true, force: true });
});

/** Sends maximal searches at once until one of them fails at the connection (the process died). */
async function exhaustHeap(baseUrl: string): Promise<string[]> {
  const body = maximalSearch();
  // Eight projects, so that all eight bodies are read and searched at once: one project's searches now
  // wait for its work slots with their bodies unread (fair-share.ts), and eight of one project had the
  // 64 MB heap survive (all 200) in one run.
  const outcomes = await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      fetchWithin(
        `${baseUrl}/v1/catalog/search`,
        {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            authorization: `Bearer ${signHs256(secret, { projectId: `heap-test-${i}` })}`,
          },
          body,
        },
        60_000,
      ).then(
        async (response) => String((await response.arrayBuffer(), response.status)),
        (error: Error) => (error.cause as { code?: string } | undefined)?.code ?? error.name,
      ),
    ),
  );
  return outcomes;
}

async function waitForExit(id: string, timeoutMs: number): Promise<{ ExitCode: number; Running: boolean }> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const state = JSON.parse(await docker(['inspect', '--format', '{{json .State}}', id])) as {
      ExitCode: number;
      Running: boolean;
      Restarting: boolean;
    };
    if (!state.Running || Date.now() > until) return state;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('the heap limit', () => {
  it('follows the container memory limit without any flag (Node sizes it from the cgroup: about half)', async () => {
    const limits: Record<string, number> = {};
    for (const memory of ['512m', '1g']) {
      const result = await run('docker', [
        'run',
        '--rm',
        '--memory',
        memory,
        '--entrypoint',
        'node',
        image,
        '-p',
        "require('v8').getHeapStatistics().heap_size_limit",
      ]);
      expect(result.code, result.stderr).toBe(0);
      limits[memory] = Math.round(Number(result.stdout.trim()) / 2 ** 20);
    }
    console.log(`[fatal-exit] V8 heap limit (MiB) by container memory limit: ${JSON.stringify(limits)}`);
    expect(limits['512m']).toBeGreaterThan(512 * 0.4);
    expect(limits['512m']).toBeLessThan(512 * 0.6);
    expect(limits['1g']).toBeGreaterThan(limits['512m']!);
    expect(limits['1g']).toBeLessThan(1024 * 0.6);
  });
});

describe('a heap overflow', () => {
  it('ends the container (docker run --init) with a non-zero code instead of leaving it hanging', async () => {
    const port = await freePort();
    const id = await docker([
      'run',
      '--detach',
      '--init',
      '--read-only',
      '--publish',
      `127.0.0.1:${port}:8080`,
      '--env',
      `AUTH_JWT_SECRET=${secret}`,
      '--env',
      'LOG_LEVEL=warn',
      '--env',
      `NODE_OPTIONS=--max-old-space-size=${SMALL_HEAP_MB}`,
      image,
    ]);
    cleanups.push(() => docker(['rm', '--force', id]));
    await waitForOk(`http://127.0.0.1:${port}/readyz`, 30_000);
    const started = Date.now();
    const outcomes = await exhaustHeap(`http://127.0.0.1:${port}`);
    const state = await waitForExit(id, 60_000);
    const logs = await run('docker', ['logs', id]);
    console.log(
      `[fatal-exit] docker run --init, heap ${SMALL_HEAP_MB} MB: searches ${outcomes.join(',')}; exit code ${state.ExitCode} after ${Date.now() - started} ms`,
    );
    expect(state.Running).toBe(false);
    expect(state.ExitCode).not.toBe(0);
    expect(logs.stderr + logs.stdout).toMatch(/heap out of memory/);
  });

  it('under docker compose: the service exits non-zero and compose restarts it', async () => {
    const port = await freePort();
    const envFile = join(envDir, 'fatal.env');
    writeFileSync(
      envFile,
      `AUTH_JWT_SECRET=${secret}\nLOG_LEVEL=warn\nNODE_OPTIONS=--max-old-space-size=${SMALL_HEAP_MB}\n`,
    );
    const runCompose = await composeRunner(
      `catalog-search-fatal-${process.pid}`,
      {
        ...process.env,
        CATALOG_SEARCH_IMAGE: image,
        CATALOG_SEARCH_ENV_FILE: envFile,
        CATALOG_SEARCH_PORT: String(port),
      },
      repoRoot,
    );
    cleanups.push(() => runCompose(['down', '--volumes', '--timeout', '5']));
    const up = await runCompose(['up', '-d']);
    expect(up.code, up.stderr).toBe(0);
    const baseUrl = `http://127.0.0.1:${port}`;
    await waitForOk(`${baseUrl}/readyz`, 30_000);
    const id = (await runCompose(['ps', '--quiet', 'catalog-search'], 30_000)).stdout.trim();
    const hostConfig = JSON.parse(await docker(['inspect', '--format', '{{json .HostConfig}}', id])) as {
      Init: boolean;
      RestartPolicy: { Name: string };
    };
    expect(hostConfig.Init).toBe(true);
    expect(hostConfig.RestartPolicy.Name).toBe('unless-stopped');

    const started = Date.now();
    const outcomes = await exhaustHeap(baseUrl);
    // Back after the restart: a fresh process answers again.
    const until = Date.now() + 60_000;
    let restarts = 0;
    while (Date.now() < until) {
      restarts = Number(await docker(['inspect', '--format', '{{.RestartCount}}', id]));
      if (restarts > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const restartedAfterMs = Date.now() - started;
    const readyAfterMs = (await waitForOk(`${baseUrl}/readyz`, 30_000)) + restartedAfterMs;
    const logs = await run('docker', ['logs', id]);
    console.log(
      `[fatal-exit] compose, heap ${SMALL_HEAP_MB} MB: searches ${outcomes.join(',')}; restarts ${restarts} (seen after ${restartedAfterMs} ms); ready again after ${readyAfterMs} ms`,
    );
    expect(restarts).toBeGreaterThanOrEqual(1);
    expect(logs.stderr + logs.stdout).toMatch(/heap out of memory/);
    const health = await fetchWithin(`${baseUrl}/healthz`);
    expect(health.status).toBe(200);
  });
});
