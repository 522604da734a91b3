import cors from '@fastify/cors';
import { loadLanguages } from '@catalog-search/core';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import type { Config } from './config.js';
import { answerClientError, registerErrorHandling, sendProblem, toProblemError } from './errors.js';
import apiVersionPlugin from './plugins/api-version.js';
import authPlugin from './plugins/auth.js';
import metricsPlugin from './plugins/metrics.js';
import openapiPlugin from './plugins/openapi.js';
import { requestIdFor } from './request-id.js';
import routes from './routes/all-routes.js';
import { boundedValidatorCompiler } from './schema-validator.js';
import { createServices, type ServiceDeps } from './services.js';
import { traceRequests } from './tracing/request-spans.js';
import { discardUnreadBodies } from './unread-body.js';
import type { Tracing } from './tracing/spans.js';

declare module 'fastify' {
  interface FastifyInstance {
    lifecycle: {
      /** Set by server.ts on SIGTERM (and by close()): /readyz then answers 503. */
      shuttingDown: boolean;
      /** Set once the listener is closed (and by close()): every response then closes its connection. */
      closingConnections: boolean;
    };
  }
}

/** What tests and server.ts may pass in: the services' own deps (services.ts), a log stream, tracing. */
export interface AppDeps extends ServiceDeps {
  /** Where logs go (default stdout); tests capture the audit lines here. */
  logStream?: DestinationStream;
  /** OpenTelemetry tracing, started by server.ts when config.tracing is set (src/tracing); off when absent. */
  tracing?: Tracing;
}

const CONNECTIONS_CHECKING_INTERVAL_MS = 250;

/** Builds the service without listening: server.ts listens, tests inject or listen on loopback. */
export function buildApp(config: Readonly<Config>, deps: AppDeps = {}): FastifyInstance {
  if (config.auth === undefined)
    throw new Error('buildApp: config.auth is required (server.ts makes a development key)');

  const app = Fastify({
    // Routers forward third-party tool objects: a `__proto__` (or `constructor.prototype`) key in
    // one is removed while parsing, never a 400 for the whole list.
    onProtoPoisoning: 'remove',
    onConstructorPoisoning: 'remove',
    logger: {
      level: config.logLevel,
      redact: { paths: ['req.headers.authorization', 'headers.authorization', 'authorization'], censor: '[redacted]' },
      ...(deps.logStream ? { stream: deps.logStream } : {}),
    },
    bodyLimit: config.http.bodyLimitBytes,
    http: {
      headersTimeout: config.http.headersTimeoutMs,
      // How often Node checks the header and request timeouts (default 30 s, so a 15 s timeout fired
      // after up to 45 s): a walk over the open connections, cheap at this period.
      connectionsCheckingInterval: CONNECTIONS_CHECKING_INTERVAL_MS,
    },
    clientErrorHandler: answerClientError,
    requestTimeout: config.http.requestTimeoutMs,
    keepAliveTimeout: config.http.keepAliveTimeoutMs,
    // During shutdown, requests already on open connections are still served (with
    // Connection: close) rather than refused; /readyz tells load balancers to go elsewhere.
    return503OnClosing: false,
    requestIdHeader: false,
    logController: new LogController({
      requestIdLogLabel: 'requestId',
      // Probes every few seconds would drown the audit lines.
      disableRequestLogging: (request) => request.url === '/healthz' || request.url === '/readyz',
    }),
    genReqId: requestIdFor,
    // Errors before routing (e.g. a malformed URL) are problem+json too.
    frameworkErrors: (error, _request, reply) => {
      reply.header('x-request-id', reply.request.id);
      sendProblem(reply, toProblemError(error));
    },
  });
  // Fastify's default ajv settings walk every string for maxLength on big bodies; TypeBox's compiled
  // checks are markedly faster for a 1,000-tool list (and this one stops at the errors it reports).
  app.setValidatorCompiler(boundedValidatorCompiler);

  // The API speaks JSON only: other bodies get 415, not a confusing schema error.
  app.removeContentTypeParser('text/plain');
  // A route that takes no body (DELETE /v1/catalog/feedback) serves a request without one whatever its
  // content-type says: generated clients send `content-type: application/json` on every call, and Fastify
  // parses an empty body by it (a 400 "The request body is empty", or a 415).
  app.addHook('onRequest', async (request) => {
    const { headers } = request;
    const bodiless =
      headers['transfer-encoding'] === undefined &&
      (headers['content-length'] === undefined || headers['content-length'] === '0');
    if (bodiless && request.routeOptions.schema?.body === undefined) delete headers['content-type'];
    // Content codings are case-insensitive (RFC 9110 8.4.1): `GZIP` is gzip, not a 415. The decompressor
    // compares the header as it is.
    const encoding = headers['content-encoding'];
    if (typeof encoding === 'string') headers['content-encoding'] = encoding.trim().toLowerCase();
  });

  app.decorate('lifecycle', { shuttingDown: false, closingConnections: false });
  app.addHook('preClose', async () => {
    app.lifecycle.shuttingDown = true;
    app.lifecycle.closingConnections = true;
  });
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
    // Once the listener is closed, each connection closes after its response, which tells the client
    // not to reuse it (see connection-drain.ts). Not earlier: while the listener is open, a client
    // told to reconnect may sit in the accept queue when it closes, and be reset.
    if (app.lifecycle.closingConnections) reply.header('connection', 'close');
  });
  discardUnreadBodies(app);
  registerErrorHandling(app);

  const services = createServices(config, deps, app.log);
  app.decorate('metrics', services.metrics);
  app.addHook('onReady', services.ready);
  // Every language core can read (their dictionaries are not imported with core): loaded before the
  // first request, so a request in any of them is read against its dictionary from the start.
  app.addHook('onReady', () => loadLanguages());
  app.addHook('onClose', services.close);
  if (deps.tracing) traceRequests(app, deps.tracing, new Set(['/healthz', '/readyz', config.metrics.path]));

  if (config.corsOrigins.length > 0) {
    // For routers whose client runs in a browser or an Electron renderer.
    app.register(cors, {
      origin: config.corsOrigins.includes('*') ? '*' : [...config.corsOrigins],
      methods: ['GET', 'POST', 'DELETE'],
      allowedHeaders: [
        'authorization',
        'content-type',
        'x-learning',
        'x-project-id',
        'x-request-id',
        'x-search-deadline-ms',
      ],
      exposedHeaders: [
        'x-request-id',
        'api-version',
        'retry-after',
        'x-ratelimit-limit',
        'x-ratelimit-remaining',
        'x-ratelimit-reset',
      ],
      maxAge: 600,
    });
  }
  if (config.metrics.enabled) {
    app.register(metricsPlugin, {
      metrics: services.metrics,
      path: config.metrics.port === undefined ? config.metrics.path : undefined,
    });
  }
  app.register(apiVersionPlugin);
  // Before the routes: it documents them as they are registered.
  app.register(openapiPlugin, { serveDocs: config.docs.enabled });
  app.register(authPlugin, { auth: config.auth });
  app.register(routes, { services });
  return app;
}
