// The built service (node dist/src/server.js) as a child process on a free loopback port, configured by
// env, for the reliability scenarios; plus the bits every scenario needs (tokens, a sample search,
// printing figures). `npm run test:reliability` builds dist first.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { claims, signJwt } from '../helpers/tokens.js';
import { freePort } from '../helpers/free-port.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
// RELIABILITY_SERVER_JS runs the scenarios against another build (e.g. main's, to compare figures).
const serverJs = process.env.RELIABILITY_SERVER_JS ?? `${root}dist/src/server.js`;

/** Secret for scenarios that use AUTH_JWT_SECRET (HS256). */
export const SECRET = 'reliability-suite-secret-of-at-least-32-bytes';

export const sampleSearch: unknown = JSON.parse(readFileSync(`${root}examples/search-request.json`, 'utf8'));

export function hs256Token(extraClaims: Record<string, unknown> = {}): string {
  return signJwt(claims(extraClaims), { alg: 'HS256', key: SECRET });
}

export interface ServiceProcess {
  url: string;
  port: number;
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code (or the signal name) once the process has exited. */
  exited: Promise<number | string>;
  /** Sends SIGTERM and waits for the exit (SIGKILL after `timeoutMs`). */
  stop(timeoutMs?: number): Promise<number | string>;
}

const running = new Set<ServiceProcess>();

/**
 * Starts the service with `env` on top of a production baseline (HS256 key, warn logs, no rate limit)
 * and resolves once /healthz answers. Stop it with `stop()`, or `stopAll()` in afterEach/afterAll.
 */
export async function startService(env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<ServiceProcess> {
  if (!existsSync(serverJs)) throw new Error(`${serverJs} is missing: run \`npm run build\` first (npm run test:reliability does)`);
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeArgs, serverJs], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      AUTH_JWT_SECRET: SECRET,
      RATE_LIMIT_PER_MINUTE: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  const url = `http://127.0.0.1:${port}`;
  const service: ServiceProcess = {
    url,
    port,
    child,
    output: () => output,
    exited,
    async stop(timeoutMs = 15_000) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
        running.delete(service);
      }
    },
  };
  running.add(service);
  const until = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode} before it listened:\n${output}`);
    const ok = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) }).then((r) => r.ok, () => false);
    if (ok) return service;
    if (Date.now() > until) {
      await service.stop(1000);
      throw new Error(`the service did not answer /healthz within 15 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((service) => service.stop()));
}

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
