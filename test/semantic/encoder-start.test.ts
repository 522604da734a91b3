// Start on any host (issue 47): with EMBEDDINGS=on the service starts listening without waiting for the
// embedded encoder's model, which loads in the background; meanwhile searches rank by words and say so
// (meta.semantic "pending"), and once it is loaded they fuse meaning. Before, the load ran inside Fastify's
// onReady, and a load over 10 s (a busy host, forced GCs, a CPU quota) ended the start with
// FST_ERR_HOOK_TIMEOUT. The service runs as its own process with a major GC forced every 10 ms
// (force-gc.mjs); test/container/image.test.ts starts it under a CPU quota (docker run --cpus).
import { fileURLToPath } from 'node:url';
import type { SearchResponse } from '@catalog-search/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sampleTools } from '../fixtures/tools.js';
import { TEST_SECRET } from '../helpers/app.js';
import { startServiceProcess, type ServiceProcess } from '../helpers/service-process.js';
import { testToken } from '../helpers/tokens.js';

const FORCE_GC = ['--expose-gc', '--import', fileURLToPath(new URL('../helpers/force-gc.mjs', import.meta.url))];
const LOADING =
  'semantic stage on: embedded encoder loading in the background; searches rank by words until it is loaded (meta.semantic "pending")';
const LOADED = 'semantic stage on: embedded encoder loaded';

let service: ServiceProcess;

beforeAll(async () => {
  service = await startServiceProcess(
    {
      AUTH_JWT_SECRET: TEST_SECRET,
      AUTH_ISSUER: 'https://router.example',
      AUTH_AUDIENCE: 'catalog-search',
      EMBEDDINGS: 'on',
      FORCE_GC_MS: '10',
    },
    // A start on a busy host: tsx compiles src/ first (see service-process.ts).
    { nodeOptions: FORCE_GC, startTimeoutMs: 120_000 },
  );
}, 150_000);

afterAll(async () => {
  await service?.stop();
});

async function search(): Promise<SearchResponse> {
  const response = await fetch(`${service.url}/v1/catalog/search`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${testToken({ projectId: 'encoder-start' })}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ query: ['what is on my plate tomorrow'], tools: sampleTools }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as SearchResponse;
}

const index = (msg: string) => service.logs.findIndex((line) => line.msg === msg);

it('listens before the encoder has loaded, answers by words meanwhile (not ready), then by meaning (ready), under forced GCs', async () => {
  // The start did not wait for the model: the service said it was loading, then listened; "loaded" comes
  // after the listening line, whenever the host lets the model finish.
  const listening = service.logs.findIndex((line) => String(line.msg).startsWith('Server listening'));
  expect(index(LOADING)).toBeGreaterThanOrEqual(0);
  expect(listening).toBeGreaterThan(index(LOADING));
  const loadedAt = index(LOADED);
  expect(loadedAt === -1 || loadedAt > listening).toBe(true);
  // Not ready while the model loads (a load balancer sends traffic to replicas that rank with meaning);
  // alive all along (/healthz answered before the helper returned).
  const readiness = await fetch(`${service.url}/readyz`);
  if (index(LOADED) === -1) {
    expect(readiness.status).toBe(503);
    expect(((await readiness.json()) as { code: string }).code).toBe('STARTING');
  }

  // The list's first search: nothing embedded yet, so words alone, and meta.semantic says so.
  const first = await search();
  expect(first.meta.semantic).toBe('pending');

  // The model loads and the list is embedded in the background: a minute at most here even on a busy
  // machine; the bound is a hang detector, not a speed claim.
  let answer = first;
  const giveUpAt = Date.now() + 240_000;
  while (answer.meta.semantic !== 'hybrid' && Date.now() < giveUpAt) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    answer = await search();
  }
  expect(answer.meta.semantic).toBe('hybrid');
  expect(index(LOADED)).toBeGreaterThan(listening);
  expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
  // The forced GCs ran throughout (force-gc.mjs logs its count every second).
  const gcs = service.logs.filter((line) => line.msg === 'forced gc').map((line) => Number(line.count));
  expect(Math.max(...gcs)).toBeGreaterThan(10);
  expect(service.output()).not.toContain('FST_ERR_HOOK_TIMEOUT');
}, 300_000);
