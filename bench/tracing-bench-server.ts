// Child process of bench/tracing.bench.ts: the real service, with OpenTelemetry tracing when the
// parent passes an OTLP endpoint (argv[2]) and without it otherwise, on a loopback port.
import { startTracing } from '../src/tracing/index.js';
import { benchConfig, startBenchService } from './bench-service.js';

const endpoint = process.argv[2];
const config = benchConfig({ EMBEDDINGS: 'off', ...(endpoint ? { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint } : {}) });
// As server.ts does it: the SDK is loaded only when tracing is configured.
const tracing = config.tracing ? await startTracing(config.tracing) : undefined;
const { app, port, token } = await startBenchService(config, tracing ? { tracing } : {});
process.send!({ port, token });
process.on('disconnect', () => {
  void app
    .close()
    .then(() => tracing?.shutdown(5000))
    .finally(() => process.exit(0));
});
