import type { TracingConfig } from '../config/index.js';
import type { Tracing } from './spans.js';

/**
 * Starts OpenTelemetry tracing (config.tracing is set only when an OTLP endpoint is configured).
 * The SDK is imported here, on demand: with tracing off no OpenTelemetry module is loaded.
 */
export async function startTracing(config: TracingConfig): Promise<Tracing> {
  const { startOtelTracing } = await import('./otel-tracing.js');
  return startOtelTracing(config);
}
