import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { MemoryUsage } from '../memory/exports.js';

/**
 * The service's Prometheus metrics (prom-client), one registry per app so that tests building
 * several apps in one process do not share counters. Labels take values from small fixed sets
 * (routes, rankers, degradation reasons, cache and operation names): never a project id, a token,
 * a tool name or anything else a caller chooses.
 */
export interface Metrics {
  registry: Registry;
  httpDuration: Histogram<'method' | 'route' | 'status_code'>;
  searches: Counter<'ranker' | 'degraded'>;
  toolsPerRequest: Histogram;
  llmCallDuration: Histogram<'outcome'>;
  llmTokens: Counter<'kind'>;
  cacheRequests: Counter<'cache' | 'result'>;
  toolSetReferences: Counter<'result'>;
  feedbackEvents: Counter<'result'>;
  rateLimited: Counter;
  costLimited: Counter<'limit'>;
  redisErrors: Counter<'operation'>;
  redisFallbacks: Counter<'operation'>;
}

interface MetricsOptions {
  /** Process metrics (event-loop lag, memory, CPU); off when metrics are not served. */
  defaultMetrics: boolean;
  /** Bytes held by the in-process tool-set store (estimated), read at scrape time. */
  toolSetBytes: () => number;
  /** The cache budget's use (src/memory), read at scrape time. */
  memoryUsage: () => MemoryUsage;
  /** With shared learning: its associations waiting for the hold or the rate, read at scrape time. */
  sharedWaiting?: (() => { associations: number; longestMs: number } | undefined) | undefined;
}

const PREFIX = 'catalog_search_';

export function createMetrics(options: MetricsOptions): Metrics {
  const registry = new Registry();
  // Process metrics, event-loop lag among them (nodejs_eventloop_lag_seconds and its percentiles).
  if (options.defaultMetrics) collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });
  const registers = [registry];
  // Registered in this order, which is the order of the scrape's text.
  const metrics: Metrics = { registry, ...searchMetrics(registers), ...limitAndStoreMetrics(registers) };
  registerScrapeGauges(registers, options);
  return metrics;
}

type Registers = Registry[];

/** A search's course: its HTTP duration, ranker, list size and model call. */
function searchMetrics(registers: Registers) {
  return {
    httpDuration: new Histogram({
      name: `${PREFIX}http_request_duration_seconds`,
      help: 'HTTP request duration by route template and status code.',
      labelNames: ['method', 'route', 'status_code'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8],
      registers,
    }),
    searches: new Counter({
      name: `${PREFIX}searches_total`,
      help: 'Searches answered, by ranker and degradation reason ("none" when not degraded).',
      labelNames: ['ranker', 'degraded'],
      registers,
    }),
    toolsPerRequest: new Histogram({
      name: `${PREFIX}tools_per_search`,
      help: 'Tools in the list a search ranked (sent or referred to).',
      buckets: [0, 10, 50, 100, 250, 500, 1000, 2000, 5000],
      registers,
    }),
    llmCallDuration: new Histogram({
      name: `${PREFIX}llm_call_duration_seconds`,
      help: 'Model calls made for searches (not cached or shared answers), by outcome ("ok" or the degradation reason).',
      labelNames: ['outcome'],
      buckets: [0.1, 0.25, 0.5, 1, 2, 4, 8, 16],
      registers,
    }),
    llmTokens: new Counter({
      name: `${PREFIX}llm_tokens_total`,
      help: 'Tokens billed by the model, by kind (prompt or completion).',
      labelNames: ['kind'],
      registers,
    }),
  } satisfies Partial<Metrics>;
}

/** Caches, tool-set references, reports, the limits that refuse, and Redis's failures. */
function limitAndStoreMetrics(registers: Registers) {
  return {
    cacheRequests: new Counter({
      name: `${PREFIX}cache_requests_total`,
      help: "Cache lookups by cache (llm: the answer cache, per search with a model; rank: the project's analyses, per search; vectors: the semantic stage, per tool) and result (hit, miss).",
      labelNames: ['cache', 'result'],
      registers,
    }),
    toolSetReferences: new Counter({
      name: `${PREFIX}tool_set_references_total`,
      help: 'Searches by toolSet reference, by where the list was found (local, shared: Redis) or miss (409).',
      labelNames: ['result'],
      registers,
    }),
    feedbackEvents: new Counter({
      name: `${PREFIX}feedback_events_total`,
      help: 'Reported tool uses (POST /v1/catalog/feedback), by result: accepted (learned from), ignored, or refused (503: Redis could not store them).',
      labelNames: ['result'],
      registers,
    }),
    rateLimited: new Counter({
      name: `${PREFIX}rate_limited_total`,
      help: 'Searches refused with 429 by the per-project rate limit.',
      registers,
    }),
    costLimited: new Counter({
      name: `${PREFIX}cost_limited_total`,
      help: 'Searches refused with 429 by the per-project fair share, by limit (in_flight, work: tools × sub-queries per minute, bytes per minute).',
      labelNames: ['limit'],
      registers,
    }),
    redisErrors: new Counter({
      name: `${PREFIX}redis_errors_total`,
      help: 'Redis commands that failed or timed out, by operation.',
      labelNames: ['operation'],
      registers,
    }),
    redisFallbacks: new Counter({
      name: `${PREFIX}redis_fallbacks_total`,
      help: 'Times the in-process path was taken because Redis failed or was not connected, by operation.',
      labelNames: ['operation'],
      registers,
    }),
  } satisfies Partial<Metrics>;
}

/** Gauges read at scrape time: the tool-set store's bytes and the memory budget's. */
function registerScrapeGauges(registers: Registers, options: MetricsOptions): void {
  new Gauge({
    name: `${PREFIX}tool_set_store_bytes`,
    help: 'Estimated bytes of tool lists held in process for toolSet references (bounded by TOOL_SET_CACHE_BYTES).',
    registers,
    collect() {
      this.set(options.toolSetBytes());
    },
  });
  new Gauge({
    name: `${PREFIX}cache_bytes`,
    help: 'Bytes held by each cache in the memory budget (CACHE_MEMORY_MB), keys included; reserved memory counts from the start.',
    labelNames: ['cache'],
    registers,
    collect() {
      for (const [cache, bytes] of Object.entries(options.memoryUsage().byCache)) this.set({ cache }, bytes);
    },
  });
  if (options.sharedWaiting) registerSharedLearningGauges(registers, options.sharedWaiting);
  new Gauge({
    name: `${PREFIX}cache_budget_bytes`,
    help: 'The memory budget all caches share (CACHE_MEMORY_MB).',
    registers,
    collect() {
      this.set(options.memoryUsage().maxBytes);
    },
  });
}

/**
 * Shared learning's admission (docs/privacy.md): associations that met their threshold but wait for
 * the hold or their turn at the deployment's rate. A flood of new associations shows here as a count
 * and a wait that grow (honest ones queue behind it), before any of them is used.
 */
function registerSharedLearningGauges(
  registers: Registers,
  waiting: NonNullable<MetricsOptions['sharedWaiting']>,
): void {
  new Gauge({
    name: `${PREFIX}shared_associations_waiting`,
    help:
      'Shared-learning associations (LEARNING_SHARED) that met their threshold and wait to be used: for the hold ' +
      "(LEARNING_SHARED_HOLD_MINUTES) or their turn at the deployment's rate (LEARNING_SHARED_NEW_PER_HOUR), as this replica last read the model.",
    registers,
    collect() {
      this.set(waiting()?.associations ?? 0);
    },
  });
  new Gauge({
    name: `${PREFIX}shared_associations_wait_seconds`,
    help: 'How long the last of the waiting shared-learning associations still waits (0: none waits).',
    registers,
    collect() {
      this.set((waiting()?.longestMs ?? 0) / 1000);
    },
  });
}
