// The real service as the bench child processes run it: on a loopback port, logging as in production
// (info: request lines and the audit line) into /dev/null, with a development key to sign tokens.
import pino from 'pino';
import { buildApp, type AppDeps } from '../src/app.js';
import { parseConfig, withDevelopmentKey, type Config } from '../src/config/index.js';

/**
 * The service's configuration for a bench: `env` on top of no per-project limits. One project sends
 * every request in a bench, so the request, work, byte and in-flight limits would answer 429 long
 * before the service is busy; a bench measures what a search costs, not the limits.
 */
export function benchConfig(env: Record<string, string>): Config {
  return withDevelopmentKey(
    parseConfig({
      HOST: '127.0.0.1',
      PORT: '0',
      RATE_LIMIT_PER_MINUTE: '0',
      RATE_LIMIT_WORK_PER_MINUTE: '0',
      RATE_LIMIT_MB_PER_MINUTE: '0',
      MAX_IN_FLIGHT_PER_PROJECT: '0',
      LOG_LEVEL: 'info',
      ...env,
    }),
    'bench-secret-bench-secret-bench-secret!!',
  );
}

/** Starts the service with `config` and resolves with it, its port and a token for project "bench". */
export async function startBenchService(config: Config, deps: Omit<AppDeps, 'logStream'> = {}) {
  const app = buildApp(config, { ...deps, logStream: pino.destination({ dest: '/dev/null', sync: false }) });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    app,
    port: (app.server.address() as { port: number }).port,
    token: app.jwt.sign({ projectId: 'bench', sub: 'bench' }, { expiresIn: '1h' }),
  };
}
