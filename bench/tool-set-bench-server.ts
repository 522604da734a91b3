// Child process of bench/tool-set-reference.bench.ts: the real service twice (metrics on, metrics
// off) on loopback ports, answering its own CPU time and a JSON.parse floor over IPC, so that the
// parent's load generation and body building never count as the service's CPU.
import { benchConfig, startBenchService } from './bench-service.js';

const start = (metricsEnabled: boolean) =>
  startBenchService(
    benchConfig({
      METRICS_ENABLED: String(metricsEnabled),
      // The service's defaults (the semantic stage off); BENCH_EMBEDDINGS=on measures the embedded encoder.
      ...(process.env.BENCH_EMBEDDINGS ? { EMBEDDINGS: process.env.BENCH_EMBEDDINGS } : {}),
    }),
  );
const withMetrics = await start(true);
const withoutMetrics = await start(false);

process.send!({ port: withMetrics.port, noMetricsPort: withoutMetrics.port, token: withMetrics.token });

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
