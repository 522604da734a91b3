import type { FastifyInstance } from 'fastify';
import type { Tracing, TraceSpan } from './spans.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's server span; undefined when tracing is off. */
    span: TraceSpan | undefined;
  }
}

/**
 * One server span per request, named by the route (`POST /v1/catalog/search`), continuing the
 * caller's `traceparent`. Attributes are the method, route and status only: no ids, no body.
 * Probes and scrapes (`untraced`: /healthz, /readyz, the metrics path) get none: every replica answers
 * them every few seconds, and a trace of each would bury the searches.
 */
export function traceRequests(app: FastifyInstance, tracing: Tracing, untraced: ReadonlySet<string>): void {
  app.decorateRequest('span', undefined);
  app.addHook('onRequest', async (request) => {
    const route = request.routeOptions.url ?? 'unmatched';
    if (untraced.has(route)) return;
    request.span = tracing.startRequest(`${request.method} ${route}`, request.headers, {
      'http.request.method': request.method,
      'http.route': route,
    });
  });
  app.addHook('onResponse', async (request, reply) => {
    request.span?.end({ 'http.response.status_code': reply.statusCode }, reply.statusCode >= 500);
  });
  app.addHook('onRequestAbort', async (request) => {
    request.span?.end({ 'catalog_search.aborted': true });
  });
}
