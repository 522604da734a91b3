import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../metrics/metrics.js';

interface MetricsPluginOptions {
  metrics: Metrics;
  /** Serve `GET <path>` on the API port (when METRICS_PORT is unset). */
  path: string | undefined;
}

/** Request durations by route template and status; `GET /metrics` when served on the API port. */
async function metricsPlugin(app: FastifyInstance, options: MetricsPluginOptions): Promise<void> {
  const { metrics } = options;
  app.addHook('onResponse', async (request, reply) => {
    // The route template, never the raw URL (unbounded); requests that matched no route share one label.
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.httpDuration.observe(
      { method: request.method, route, status_code: reply.statusCode },
      reply.elapsedTime / 1000,
    );
  });
  if (options.path !== undefined) {
    app.get(options.path, { schema: { hide: true } }, async (_request, reply) => {
      reply.type(metrics.registry.contentType);
      return metrics.registry.metrics();
    });
  }
}

export default fp(metricsPlugin, { name: 'metrics', fastify: '5.x' });
