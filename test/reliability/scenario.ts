// What every reliability scenario shares: the built service (test/helpers/service-process.ts, `dist`)
// on a production baseline, a sample search, and printing figures. `npm run test:reliability` builds
// dist first. Tokens come from test/helpers/tokens.ts (testToken), signed with TEST_SECRET.
import { sampleRequest } from '../fixtures/tools.js';
import { TEST_SECRET } from '../helpers/app.js';
import { startServiceProcess, stopAllServiceProcesses, type ServiceProcess } from '../helpers/service-process.js';

export type { ServiceProcess };

/** The bundled sample request (examples/search-request.json). */
export const sampleSearch: unknown = sampleRequest;

/**
 * Starts the built service with `env` on top of the scenarios' baseline (the HS256 test secret, warn
 * logs, no rate limit) and resolves once /healthz answers. `stopAll()` in afterAll stops what is left.
 */
export function startService(env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<ServiceProcess> {
  return startServiceProcess(
    { LOG_LEVEL: 'warn', AUTH_JWT_SECRET: TEST_SECRET, RATE_LIMIT_PER_MINUTE: '0', ...env },
    { build: 'dist', nodeOptions: nodeArgs },
  );
}

export const stopAll = stopAllServiceProcesses;

/** A POST /v1/catalog/search with a bearer token; resolves with the status (0 for a network error). */
export async function search(url: string, token: string, body: unknown = sampleSearch): Promise<number> {
  const response = await fetch(`${url}/v1/catalog/search`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  }).catch(() => undefined);
  if (response === undefined) return 0;
  await response.arrayBuffer();
  return response.status;
}

/** Prints a scenario's figures as one line, so the CI log carries them. */
export function report(scenario: string, figures: Record<string, unknown>): void {
  process.stdout.write(`[reliability] ${scenario}: ${JSON.stringify(figures)}\n`);
}
