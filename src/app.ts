import cors from '@fastify/cors';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import type { Config } from './config.js';
import { answerClientError, registerErrorHandling, sendProblem, toProblemError } from './errors.js';
import { MemoryBudget } from './memory/index.js';
import { ThrottledWarnings } from './log-throttle.js';
import { createMetrics, type Metrics } from './metrics/metrics.js';
import apiVersionPlugin from './plugins/api-version.js';
import authPlugin from './plugins/auth.js';
import metricsPlugin from './plugins/metrics.js';
import openapiPlugin from './plugins/openapi.js';
import { requestIdFor } from './request-id.js';
import { boundedValidatorCompiler } from './schema-validator.js';
import { Learning } from './feedback/learning.js';
import feedbackRoutes from './routes/feedback.js';
import healthRoutes from './routes/health.js';
import searchRoutes from './routes/search.js';
import { rerankerFromConfig } from './rerank/index.js';
import type { Reranker } from './search/reranker.js';
import { originOf, semanticStageFromConfig } from './semantic/stage-from-config.js';
import { connectRedis } from './shared/redis-connection.js';
import { sharedAnswerCache } from './shared/shared-answers.js';
import { sharedVectors } from './shared/shared-vectors.js';
import { SharedStore } from './shared/shared-store.js';
import { ToolSetStore } from './tool-sets/tool-set-store.js';
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
    /** The Prometheus registry and metrics (server.ts serves them on METRICS_PORT when set). */
    metrics: Metrics;
  }
}

export interface AppDeps {
  /**
   * The rerank stage. Default: the LLM stage when `config.llm` is set (LLM_MODEL), else none, and
   * searches answer with the lexical ranking (BM25-only).
   */
  reranker?: Reranker;
  /** Where logs go (default stdout); tests capture the audit lines here. */
  logStream?: DestinationStream;
  /** The cache budget (default: one of config.memory); tests pass their own to look into it. */
  memory?: MemoryBudget;
  /** OpenTelemetry tracing, started by server.ts when config.tracing is set (src/tracing); off when absent. */
  tracing?: Tracing;
}

const CONNECTIONS_CHECKING_INTERVAL_MS = 250;

/** Builds the service without listening: server.ts listens, tests inject or listen on loopback. */
export function buildApp(config: Readonly<Config>, deps: AppDeps = {}): FastifyInstance {
  if (config.auth === undefined) throw new Error('buildApp: config.auth is required (server.ts makes a development key)');

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
  registerErrorHandling(app);

  const memory = deps.memory ?? cacheBudget(config);
  // Assigned below; the tool-set gauge reads it at scrape time.
  let toolSets: ToolSetStore | undefined;
  const metrics = createMetrics({
    defaultMetrics: config.metrics.enabled,
    toolSetBytes: () => toolSets?.localBytes ?? 0,
    memoryUsage: () => memory.usage(),
  });
  app.decorate('metrics', metrics);
  if (deps.tracing) traceRequests(app, deps.tracing, new Set(['/healthz', '/readyz', config.metrics.path]));

  // REDIS_URL: rate limits, LLM answers and tool sets are shared by the replicas; never required.
  const shared = config.redis
    ? new SharedStore(connectRedis(config.redis), config.redis.keyPrefix, {
        error: (operation) => metrics.redisErrors.inc({ operation }),
        fallback: (operation) => metrics.redisFallbacks.inc({ operation }),
      }, app.log)
    : undefined;
  if (shared) {
    app.log.info({ redis: redisOrigin(config.redis!.url) }, 'shared state in Redis (REDIS_URL)');
    app.addHook('onClose', async () => shared.redis.disconnect());
  }
  toolSets = new ToolSetStore({
    memory,
    ttlMs: config.toolSets.ttlMs,
    cacheBytes: config.toolSets.cacheBytes,
    maxSharedBytes: config.http.bodyLimitBytes,
    shared,
    onLookup: (result) => metrics.toolSetReferences.inc({ result }),
  });

  const llmWarnings = new ThrottledWarnings(app.log);
  const reranker = deps.reranker ?? (config.llm
    ? rerankerFromConfig(config.llm, {
        memory,
        ...(shared ? { sharedAnswers: sharedAnswerCache(shared) } : {}),
        // One line per cause every 10 s at most: an outage must be seen, not flood the logs.
        onUpstreamFailure: (failure) =>
          llmWarnings.warn(`llm:${failure.reason}:${failure.status ?? failure.code ?? ''}`, { llm: failure }, 'LLM call failed; searches answer with the lexical ranking'),
      })
    : undefined);
  if (config.llm) {
    app.log.info({ model: config.llm.model, endpoint: originOf(config.llm.baseUrl) }, 'LLM rerank stage on');
  } else if (!deps.reranker) {
    app.log.info('BM25-only: LLM_MODEL is not set, searches are ranked lexically (meta.ranker "bm25")');
  }

  const semantic = config.embeddings ? semanticStageFromConfig(config.embeddings, app.log, {
        memory,
        shared: shared ? sharedVectors(shared) : undefined,
        onLookup: (hits, misses) => {
          metrics.cacheRequests.inc({ cache: 'vectors', result: 'hit' }, hits);
          metrics.cacheRequests.inc({ cache: 'vectors', result: 'miss' }, misses);
        },
      }) : undefined;
  if (semantic) {
    app.addHook('onReady', semantic.ready);
    app.addHook('onClose', () => semantic.stage.close());
  } else {
    app.log.info('semantic stage off (EMBEDDINGS=off): searches rank by words only (meta.semantic "off")');
  }

  if (config.corsOrigins.length > 0) {
    // For routers whose client runs in a browser or an Electron renderer.
    app.register(cors, {
      origin: config.corsOrigins.includes('*') ? '*' : [...config.corsOrigins],
      methods: ['GET', 'POST', 'DELETE'],
      allowedHeaders: ['authorization', 'content-type', 'x-project-id', 'x-request-id', 'x-search-deadline-ms'],
      exposedHeaders: ['x-request-id', 'api-version', 'retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'],
      maxAge: 600,
    });
  }
  if (config.metrics.enabled) {
    app.register(metricsPlugin, { metrics, path: config.metrics.port === undefined ? config.metrics.path : undefined });
  }
  app.register(apiVersionPlugin);
  // Before the routes: it documents them as they are registered.
  app.register(openapiPlugin, { serveDocs: config.docs.enabled });
  app.register(authPlugin, { auth: config.auth });
  app.register(healthRoutes);
  // Learning from use (src/feedback): the routers' reports, kept per project in the budget and in Redis.
  const learning = config.feedback.enabled ? new Learning(config.feedback, config.search.maxQueryChars, { memory, shared }) : undefined;
  app.register(searchRoutes, { config, reranker, toolSets, shared, metrics, memory, semantic: semantic?.stage, learning });
  if (learning) app.register(feedbackRoutes, { config, learning, shared, metrics });
  return app;
}

/**
 * Memory the tokenizer's process-wide memos may hold (core's vocabulary: at most 60,000 words and
 * 2,000,000 characters, ~10 MB; its run memo: 2^17 slots of 16 bytes and 64 characters a run at most,
 * ~6 MB), set aside from the cache budget since no project owns it.
 */
const TOKENIZER_MEMOS_BYTES = 16 * 1024 * 1024;

/** The one budget of every cache (CACHE_MEMORY_MB, CACHE_PROJECT_SHARE). */
function cacheBudget(config: Readonly<Config>): MemoryBudget {
  const memory = new MemoryBudget({ maxBytes: config.memory.cacheBytes, projectShare: config.memory.projectShare });
  memory.reserve('tokenizer-memos', Math.min(TOKENIZER_MEMOS_BYTES, config.memory.cacheBytes / 4));
  return memory;
}

/** Host and port only: the URL may carry a password. */
function redisOrigin(url: string): string {
  try {
    const { protocol, host } = new URL(url);
    return `${protocol}//${host}`;
  } catch {
    return '(invalid URL)';
  }
}
