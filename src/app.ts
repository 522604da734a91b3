import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import type { Config } from './config.js';
import { registerErrorHandling } from './errors.js';
import authPlugin from './plugins/auth.js';
import { requestIdFor } from './request-id.js';
import healthRoutes from './routes/health.js';
import searchRoutes from './routes/search.js';
import type { Reranker } from './search/types.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Set by server.ts on SIGTERM (and by close()): /readyz then answers 503. */
    lifecycle: { shuttingDown: boolean };
  }
}

export interface AppDeps {
  /** The rerank stage (LLM); without it searches answer with the lexical ranking. */
  reranker?: Reranker;
  /** Where logs go (default stdout); tests capture the audit lines here. */
  logStream?: DestinationStream;
}

/** Builds the service without listening: server.ts listens, tests inject or listen on loopback. */
export function buildApp(config: Readonly<Config>, deps: AppDeps = {}): FastifyInstance {
  if (config.auth === undefined) throw new Error('buildApp: config.auth is required (server.ts makes a development key)');

  const app = Fastify({
    logger: {
      level: config.logLevel,
      redact: { paths: ['req.headers.authorization', 'headers.authorization', 'authorization'], censor: '[redacted]' },
      ...(deps.logStream ? { stream: deps.logStream } : {}),
    },
    bodyLimit: config.http.bodyLimitBytes,
    requestTimeout: config.http.requestTimeoutMs,
    keepAliveTimeout: config.http.keepAliveTimeoutMs,
    requestIdHeader: false,
    logController: new LogController({
      requestIdLogLabel: 'requestId',
      // Probes every few seconds would drown the audit lines.
      disableRequestLogging: (request) => request.url === '/healthz' || request.url === '/readyz',
    }),
    genReqId: requestIdFor,
  });
  app.server.headersTimeout = config.http.headersTimeoutMs;
  // Fastify's default ajv settings walk every string for maxLength on big bodies; TypeBox's compiled
  // checks are markedly faster for a 1,000-tool list.
  app.setValidatorCompiler(TypeBoxValidatorCompiler);

  // The API speaks JSON only: other bodies get 415, not a confusing schema error.
  app.removeContentTypeParser('text/plain');

  app.decorate('lifecycle', { shuttingDown: false });
  app.addHook('preClose', async () => {
    app.lifecycle.shuttingDown = true;
  });
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  registerErrorHandling(app);

  app.register(authPlugin, { auth: config.auth });
  app.register(healthRoutes);
  app.register(searchRoutes, { config, reranker: deps.reranker });
  return app;
}
