import type { Server } from 'node:http';
import { loadLanguages } from '@catalog-search/core';
import Fastify, { LogController, type FastifyHttpOptions, type FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import type { Config } from './config/index.js';
import { readBodyHeaders } from './http/body-headers.js';
import { answerClientError, registerErrorHandling, sendProblem, toProblemError } from './http/errors.js';
import { requestIdFor } from './http/request-id.js';
import { boundedValidatorCompiler } from './http/schema-validator.js';
import { discardUnreadBodies } from './http/unread-body.js';
import { registerPlugins } from './plugins/all-plugins.js';
import routes from './routes/all-routes.js';
import { createServices, type Services, type ServiceDeps } from './services.js';
import { traceRequests } from './tracing/request-spans.js';
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

  const app = Fastify(fastifyOptions(config, deps.logStream));
  // Fastify's default ajv settings walk every string for maxLength on big bodies; TypeBox's compiled
  // checks are markedly faster for a 1,000-tool list (and this one stops at the errors it reports).
  app.setValidatorCompiler(boundedValidatorCompiler);
  readBodyHeaders(app);
  closeConnectionsOnShutdown(app);
  discardUnreadBodies(app);
  registerErrorHandling(app);

  const services = createServices(config, deps, app.log);
  runServices(app, services, deps.tracing);
  registerPlugins(app, { config, auth: config.auth, services });
  app.register(routes, { services });
  return app;
}

/** Fastify's options: logging, body and header limits, timeouts, request ids, errors before routing. */
function fastifyOptions(
  config: Readonly<Config>,
  logStream: DestinationStream | undefined,
): FastifyHttpOptions<Server> {
  return {
    // Routers forward third-party tool objects: a `__proto__` (or `constructor.prototype`) key in
    // one is removed while parsing, never a 400 for the whole list.
    onProtoPoisoning: 'remove',
    onConstructorPoisoning: 'remove',
    logger: {
      level: config.logLevel,
      redact: { paths: ['req.headers.authorization', 'headers.authorization', 'authorization'], censor: '[redacted]' },
      ...(logStream ? { stream: logStream } : {}),
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
  };
}

/** `lifecycle`, and every response's `x-request-id` and, once the listener is closed, `Connection: close`. */
function closeConnectionsOnShutdown(app: FastifyInstance): void {
  app.decorate('lifecycle', { shuttingDown: false, closingConnections: false });
  app.addHook('preClose', async () => {
    app.lifecycle.shuttingDown = true;
    app.lifecycle.closingConnections = true;
  });
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
    // Once the listener is closed, each connection closes after its response, which tells the client
    // not to reuse it (see http/connection-drain.ts). Not earlier: while the listener is open, a client
    // told to reconnect may sit in the accept queue when it closes, and be reset.
    if (app.lifecycle.closingConnections) reply.header('connection', 'close');
  });
}

/** The services' start and stop with the app's, the languages loaded before the first request, tracing. */
function runServices(app: FastifyInstance, services: Services, tracing: Tracing | undefined): void {
  app.decorate('metrics', services.metrics);
  app.addHook('onReady', services.ready);
  // Every language core can read (their dictionaries are not imported with core): loaded before the
  // first request, so a request in any of them is read against its dictionary from the start.
  app.addHook('onReady', () => loadLanguages());
  app.addHook('onClose', services.close);
  const { config } = services;
  if (tracing) traceRequests(app, tracing, new Set(['/healthz', '/readyz', config.metrics.path]));
}
