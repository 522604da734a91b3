import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppDeps } from '../../src/app.js';
import { HMAC_ALGORITHMS, type AuthConfig, type Config } from '../../src/config.js';

export const TEST_SECRET = 'test-secret-that-is-at-least-32-bytes-long!!';

/** A literal config as production would have it, with small limits where tests probe them. */
export function testConfig(overrides: { auth?: Partial<AuthConfig> } & Partial<Omit<Config, 'auth'>> = {}): Config {
  const { auth, ...rest } = overrides;
  return {
    host: '127.0.0.1',
    port: 0,
    logLevel: 'info',
    production: true,
    auth: {
      key: { kind: 'secret', secret: TEST_SECRET, algorithms: HMAC_ALGORITHMS },
      issuers: ['https://router.example'],
      audiences: ['catalog-search'],
      projectClaim: 'projectId',
      clockToleranceMs: 30_000,
      ...auth,
    },
    llm: undefined,
    // Off unless a test turns it on: each stage starts its own encoder worker.
    embeddings: undefined,
    search: {
      deadlineMs: 4000,
      maxTools: 5000,
      maxQueryChars: 32_000,
      maxContextChars: 64_000,
      maxDescriptionChars: 2000,
      cacheProjects: 64,
      cacheToolsPerProject: 6000,
    },
    http: { bodyLimitBytes: 5 * 1024 * 1024, requestTimeoutMs: 30_000, headersTimeoutMs: 15_000, keepAliveTimeoutMs: 5_000 },
    corsOrigins: [],
    rateLimitPerMinute: 0,
    fairShare: { maxInFlight: 0, maxWaiting: 0, workPerMinute: 0, bytesPerMinute: 0 },
    memory: { cacheBytes: 128 * 1024 * 1024, projectShare: 0.25 },
    redis: undefined,
    toolSets: { ttlMs: 3_600_000, cacheBytes: 64 * 1024 * 1024 },
    feedback: {
      enabled: true,
      halfLifeMs: 30 * 86_400_000,
      priorReports: 3,
      maxBoost: 1,
      maxEvents: 5000,
      searchTtlMs: 900_000,
      maxBodyBytes: 256 * 1024,
    },
    metrics: { enabled: true, path: '/metrics', port: undefined, host: '127.0.0.1' },
    docs: { enabled: true },
    tracing: undefined,
    shutdown: { delayMs: 0, timeoutMs: 10_000 },
    ...rest,
  };
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
