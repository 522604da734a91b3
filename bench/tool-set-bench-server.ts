// Child process of bench/tool-set-reference.bench.ts: the real service twice (metrics on, metrics
// off) on loopback ports, answering its own CPU time and a JSON.parse floor over IPC, so that the
// parent's load generation and body building never count as the service's CPU.
import pino from 'pino';
import { buildApp } from '../src/app.js';
import { parseConfig, withDevelopmentKey } from '../src/config.js';

const start = async (metricsEnabled: boolean) => {
  const config = withDevelopmentKey(
    parseConfig({
      HOST: '127.0.0.1',
      PORT: '0',
      // The bench sends thousands of 1,000-tool searches from one project: no request, work or byte
      // budget (each would answer 429 within seconds); it measures the CPU of a search, not the limits.
      RATE_LIMIT_PER_MINUTE: '0',
      RATE_LIMIT_WORK_PER_MINUTE: '0',
      RATE_LIMIT_MB_PER_MINUTE: '0',
      LOG_LEVEL: 'info',
      METRICS_ENABLED: String(metricsEnabled),
      // BENCH_EMBEDDINGS=off measures the BM25-only service (the semantic stage is on by default).
      EMBEDDINGS: process.env.BENCH_EMBEDDINGS ?? 'on',
    }),
    'bench-secret-bench-secret-bench-secret!!',
  );
  // Logs as in production (info: request lines and the audit line), into /dev/null.
  const app = buildApp(config, { logStream: pino.destination({ dest: '/dev/null', sync: false }) });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return app;
};
const withMetrics = await start(true);
const withoutMetrics = await start(false);

const portOf = (app: typeof withMetrics) => (app.server.address() as { port: number }).port;
process.send!({
  port: portOf(withMetrics),
  noMetricsPort: portOf(withoutMetrics),
  token: withMetrics.jwt.sign({ projectId: 'bench', sub: 'bench' }, { expiresIn: '1h' }),
});

type Message = { kind: 'cpu' } | { kind: 'parse'; body: string; times: number };
process.on('message', (message: Message) => {
  if (message.kind === 'cpu') {
    const { user, system } = process.cpuUsage();
    process.send!({ cpuUs: user + system });
    return;
  }
  // The floor every full-list search pays: parsing its body (CPU of JSON.parse alone, same process).
  const before = process.cpuUsage();
  for (let i = 0; i < message.times; i += 1) JSON.parse(message.body);
  const { user, system } = process.cpuUsage(before);
  process.send!({ cpuUs: user + system });
});
process.on('disconnect', () => process.exit(0));
