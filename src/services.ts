import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config/index.js';
import { Learning } from './learning/learning.js';
import { termKeysFor, type TermKeys } from './learning/term-keys.js';
import { ThrottledWarnings } from './logging/log-throttle.js';
import { MemoryBudget } from './memory/exports.js';
import { createMetrics, type Metrics } from './metrics/metrics.js';
import { rerankerFromConfig } from './rerank/exports.js';
import { FairShare } from './fairness/fair-share.js';
import type { SearchServices } from './search/pipeline.js';
import { ProjectRankCaches } from './lexical/rank-caches.js';
import type { Reranker } from './rerank/stage.js';
import { FilterRulePool } from './fairness/filter-rule-pool.js';
import { RankingThread } from './lexical/ranking-thread.js';
import { vectorProviderFromConfig } from './semantic/from-config.js';
import { connectRedis } from './redis/redis-connection.js';
import { sharedAnswerCache } from './rerank/shared-answers.js';
import { SharedStore } from './redis/shared-store.js';
import { sharedVectors } from './semantic/shared-vectors.js';
import { ToolSetStore } from './tool-sets/tool-set-store.js';
import { originOf } from './logging/url-origin.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The Prometheus registry and metrics (app.ts decorates; server.ts serves them on METRICS_PORT when set). */
    metrics: Metrics;
  }
}

/**
 * The composition root: every long-lived part of the service, built once from the configuration, in
 * the order they depend on each other. app.ts hands the result to the routes and runs `ready`/`close`
 * with the server's lifecycle; nothing else constructs these parts.
 */
export interface Services extends SearchServices {
  config: Readonly<Config>;
  /** The one budget of every cache (CACHE_MEMORY_MB, CACHE_PROJECT_SHARE). */
  memory: MemoryBudget;
  /** Redis, when REDIS_URL is set: rate limits, LLM answers, tool sets, vectors and learning are shared by the replicas. */
  shared?: SharedStore | undefined;
  /** The feedback route's work shares (learning's CPU is charged too), apart from the searches'. */
  reportFairShare: FairShare;
  /** Starts loading what should be loaded before the first search (the embedded encoder), without waiting for it. */
  ready(): Promise<void>;
  /** What is still loading (readiness answers 503 until it is done), or undefined when nothing is. */
  loading(): string | undefined;
  /** Stops workers and background work and disconnects from Redis. */
  close(): Promise<void>;
}

export interface ServiceDeps {
  /** The rerank stage (default: the LLM stage when LLM_MODEL is set, else none: BM25-only). */
  reranker?: Reranker | undefined;
  /** The cache budget (default: one of config.memory); tests pass their own to look into it. */
  memory?: MemoryBudget | undefined;
  /** Learning's clock (default Date.now): the eval's simulation ages its projects by days with its own. */
  learningClock?: (() => number) | undefined;
  /** False: every ranking on the event loop, as before the ranking thread (benches compare the two). */
  rankingThread?: false | undefined;
}

function startRankingThread(config: Readonly<Config>, memory: MemoryBudget): RankingThread {
  return new RankingThread({
    projects: config.search.cacheProjects,
    toolsPerProject: config.search.cacheToolsPerProject,
    memory,
    // In production the thread starts with the service; elsewhere on the first long ranking.
    startNow: config.production,
  });
}

/** REDIS_URL: shared by the replicas, never required (every use falls back to this process). */
function sharedStore(config: Readonly<Config>, metrics: Metrics, log: FastifyBaseLogger): SharedStore | undefined {
  if (!config.redis) return undefined;
  log.info({ redis: originOf(config.redis.url) }, 'shared state in Redis (REDIS_URL)');
  return new SharedStore(
    connectRedis(config.redis),
    config.redis.keyPrefix,
    {
      error: (operation) => metrics.redisErrors.inc({ operation }),
      fallback: (operation) => metrics.redisFallbacks.inc({ operation }),
    },
    log,
    { cacheMs: config.redis.commandTimeoutMs, stateMs: config.redis.stateTimeoutMs ?? config.redis.commandTimeoutMs },
  );
}

export function createServices(config: Readonly<Config>, deps: ServiceDeps, log: FastifyBaseLogger): Services {
  const memory = deps.memory ?? cacheBudget(config);
  // Assigned below; the tool-set and shared-learning gauges read them at scrape time.
  let toolSets: ToolSetStore | undefined;
  let learning: Learning | undefined;
  const metrics: Metrics = createMetrics({
    defaultMetrics: config.metrics.enabled,
    toolSetBytes: () => toolSets?.localBytes ?? 0,
    memoryUsage: () => memory.usage(),
    sharedWaiting:
      config.feedback.enabled && config.feedback.shared.enabled ? () => learning?.sharedWaiting() : undefined,
  });

  const shared = sharedStore(config, metrics, log);

  toolSets = new ToolSetStore({
    memory,
    ttlMs: config.toolSets.ttlMs,
    cacheBytes: config.toolSets.cacheBytes,
    maxSharedBytes: config.http.bodyLimitBytes,
    shared,
    onLookup: (result) => metrics.toolSetReferences.inc({ result }),
  });

  // The deployment's keyed hashes: learning's words, and every request-derived Redis key (docs/privacy.md).
  const keys = termKeysFor(config.feedback.secret, config.auth?.key);
  const reranker = deps.reranker ?? llmReranker(config, memory, shared ? { store: shared, keys } : undefined, log);
  if (config.llm) log.info({ model: config.llm.model, endpoint: originOf(config.llm.baseUrl) }, 'LLM rerank stage on');
  else if (!deps.reranker)
    log.info('BM25-only: LLM_MODEL is not set, searches are ranked lexically (meta.ranker "bm25")');

  const semantic = config.embeddings
    ? vectorProviderFromConfig(config.embeddings, log, {
        memory,
        shared: shared ? sharedVectors(shared, (id) => keys.stored(id)) : undefined,
        onLookup: (hits, misses) => {
          metrics.cacheRequests.inc({ cache: 'vectors', result: 'hit' }, hits);
          metrics.cacheRequests.inc({ cache: 'vectors', result: 'miss' }, misses);
        },
      })
    : undefined;
  if (!semantic)
    log.info('semantic stage off: searches rank by words only (meta.semantic "off"); EMBEDDINGS=on turns it on');

  // Learning from use (src/learning): the routers' reports, kept per project in the budget and in Redis.
  learning = config.feedback.enabled
    ? new Learning(config.feedback, config.search.maxQueryChars, {
        memory,
        shared,
        keys,
        lists: toolSets,
        clock: deps.learningClock,
      })
    : undefined;
  // `filter.tools` rules run in a worker thread, never on the event loop (fairness/filter-rule-pool.ts).
  const filterRules = new FilterRulePool();
  // Long rankings run in a thread of their own, so that they never hold the event loop (lexical/ranking-thread.ts).
  const rankingThread = deps.rankingThread === false ? undefined : startRankingThread(config, memory);
  return {
    config,
    search: config.search,
    memory,
    metrics,
    shared,
    toolSets,
    filterRules,
    // Per project: searches worked on and waiting at once, work (tools × sub-queries) and bytes per minute.
    fairShare: new FairShare(config.fairShare, { onRefused: (limit) => metrics.costLimited.inc({ limit }) }),
    // Reports have a work budget of their own, of the searches' size, so they never take a project's searches away.
    reportFairShare: new FairShare(config.fairShare, { onRefused: (limit) => metrics.costLimited.inc({ limit }) }),
    rankCaches: new ProjectRankCaches({
      projects: config.search.cacheProjects,
      toolsPerProject: config.search.cacheToolsPerProject,
      memory,
    }),
    rankingThread,
    vectors: semantic?.provider,
    reranker,
    learning,
    ready: async () => semantic?.ready(),
    loading: () => semantic?.loading(),
    close: async () => {
      await Promise.all([filterRules.close(), rankingThread?.close(), semantic?.provider.close()]);
      shared?.redis.disconnect();
    },
  };
}

function llmReranker(
  config: Readonly<Config>,
  memory: MemoryBudget,
  shared: { store: SharedStore; keys: TermKeys } | undefined,
  log: FastifyBaseLogger,
): Reranker | undefined {
  if (!config.llm) return undefined;
  const warnings = new ThrottledWarnings(log);
  return rerankerFromConfig(config.llm, {
    memory,
    ...(shared ? { sharedAnswers: sharedAnswerCache(shared.store, (key) => shared.keys.stored(key)) } : {}),
    // One line per cause every 10 s at most: an outage must be seen, not flood the logs.
    onUpstreamFailure: (failure) =>
      warnings.warn(
        `llm:${failure.reason}:${failure.status ?? failure.code ?? ''}`,
        { llm: failure },
        'LLM call failed; searches answer with the lexical ranking',
      ),
  });
}

/**
 * Memory the tokenizer's process-wide memos may hold (core's process vocabulary, which learning's
 * terms use: at most 60,000 words and 2,000,000 characters, ~10 MB; its run memo: 2^17 slots of 16
 * bytes and 64 characters a run at most, ~6 MB), set aside from the cache budget since no project owns
 * it. Each project's ranking vocabulary is part of its rank cache and counted there.
 */
const TOKENIZER_MEMOS_BYTES = 16 * 1024 * 1024;

function cacheBudget(config: Readonly<Config>): MemoryBudget {
  const memory = new MemoryBudget({ maxBytes: config.memory.cacheBytes, projectShare: config.memory.projectShare });
  memory.reserve('tokenizer-memos', Math.min(TOKENIZER_MEMOS_BYTES, config.memory.cacheBytes / 4));
  return memory;
}
