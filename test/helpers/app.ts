import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppDeps } from '../../src/app.js';
import { parseConfig, type AuthConfig, type Config, type Env } from '../../src/config/index.js';

export const TEST_SECRET = 'test-secret-that-is-at-least-32-bytes-long!!';

/**
 * The environment tests run with: production as deployed, with what tests probe switched off or made
 * small (each limit's own tests turn it on through an override).
 */
const TEST_ENV: Env = {
  NODE_ENV: 'production',
  HOST: '127.0.0.1',
  PORT: '0',
  AUTH_JWT_SECRET: TEST_SECRET,
  AUTH_ISSUER: 'https://router.example',
  AUTH_AUDIENCE: 'catalog-search',
  // Off unless a test turns it on: each stage starts its own encoder worker.
  EMBEDDINGS: 'off',
  RATE_LIMIT_PER_MINUTE: '0',
  MAX_IN_FLIGHT_PER_PROJECT: '0',
  MAX_WAITING_PER_PROJECT: '0',
  RATE_LIMIT_WORK_PER_MINUTE: '0',
  RATE_LIMIT_MB_PER_MINUTE: '0',
  KEEP_ALIVE_TIMEOUT_MS: '5000',
  TOOL_SET_CACHE_BYTES: String(64 * 1024 * 1024),
  // Production serves metrics on the API port only when told to; tests read them there.
  METRICS_ENABLED: 'true',
  METRICS_HOST: '127.0.0.1',
  SHUTDOWN_TIMEOUT_MS: '10000',
};

/** The config `TEST_ENV` parses to, with overrides; a mutable copy, since tests build variants of it. */
export function testConfig(overrides: { auth?: Partial<AuthConfig> } & Partial<Omit<Config, 'auth'>> = {}): Config {
  const { auth, ...rest } = overrides;
  const config = structuredClone(parseConfig(TEST_ENV)) as Config;
  return { ...config, auth: { ...config.auth!, ...auth }, ...rest };
}

/** Collects the app's log lines (pino JSON) so tests can check the audit line and redaction. */
export class LogCapture extends Writable {
  readonly lines: Record<string, unknown>[] = [];
  readonly raw: string[] = [];
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    for (const line of chunk.toString().split('\n').filter(Boolean)) {
      this.raw.push(line);
      this.lines.push(JSON.parse(line) as Record<string, unknown>);
    }
    done();
  }
}

export interface RunningApp {
  app: FastifyInstance;
  url: string;
  logs: LogCapture;
  close(): Promise<void>;
}

/** Builds the real app and listens on a loopback port, for tests over real HTTP. */
export async function startApp(config: Config = testConfig(), deps: AppDeps = {}): Promise<RunningApp> {
  const logs = new LogCapture();
  const app = buildApp(config, { logStream: logs, ...deps });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { app, url: `http://127.0.0.1:${address.port}`, logs, close: () => app.close() };
}
