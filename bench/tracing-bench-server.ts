// Child process of bench/tracing.bench.ts: the real service, with OpenTelemetry tracing when the
// parent passes an OTLP endpoint (argv[2]) and without it otherwise, on a loopback port.
import pino from 'pino';
import { buildApp } from '../src/app.js';
import { parseConfig, withDevelopmentKey } from '../src/config.js';
import { startTracing } from '../src/tracing/index.js';

const endpoint = process.argv[2];
const config = withDevelopmentKey(
  parseConfig({
    HOST: '127.0.0.1',
    PORT: '0',
    // No per-project limit: one project sends every request here (the fair share would answer 429).
    RATE_LIMIT_PER_MINUTE: '0',
    RATE_LIMIT_WORK_PER_MINUTE: '0',
    RATE_LIMIT_MB_PER_MINUTE: '0',
    MAX_IN_FLIGHT_PER_PROJECT: '0',
    LOG_LEVEL: 'info',
    EMBEDDINGS: 'off',
    ...(endpoint ? { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint } : {}),
  }),
  'bench-secret-bench-secret-bench-secret!!',
);
// As server.ts does it: the SDK is loaded only when tracing is configured.
const tracing = config.tracing ? await startTracing(config.tracing) : undefined;
// Logs as in production (info: request lines and the audit line), into /dev/null.
const app = buildApp(config, { logStream: pino.destination({ dest: '/dev/null', sync: false }), ...(tracing ? { tracing } : {}) });
await app.listen({ host: '127.0.0.1', port: 0 });
process.send!({
  port: (app.server.address() as { port: number }).port,
  token: app.jwt.sign({ projectId: 'bench', sub: 'bench' }, { expiresIn: '1h' }),
});
process.on('disconnect', () => {
  void app
    .close()
    .then(() => tracing?.shutdown(5000))
    .finally(() => process.exit(0));
});
