// What an answered search leaves behind: its metrics and its audit line.
import type { PreparedSearch, SearchResponse } from '@catalog-search/core';
import type { Metrics } from '../metrics/metrics.js';
import type { RequestTrace } from '../tracing/request-trace.js';
import type { RerankStats } from '../rerank/stage.js';

/** A search's outcome, as the pipeline returns it. */
export interface SearchOutcome {
  response: SearchResponse;
  /** The search as prepared (sizes for the audit line). */
  search: PreparedSearch;
  byReference: boolean;
  /**
   * Work units the search cost: its ranking's CPU time and its `filter.tools` rules' (WORK_PER_CPU_MS),
   * what its project's work budget is charged when there is one (RATE_LIMIT_WORK_PER_MINUTE).
   */
  work: number;
  /** What the rerank stage cost and saw, when it ran. */
  rerank?: RerankStats;
}

/**
 * The search's audit line (one per search, logged by the route): sizes, how each stage ran and what
 * the model cost. requestId and projectId are bound to the request's logger already; no query or tool
 * text is logged.
 */
export function auditLine(outcome: SearchOutcome, trace: RequestTrace, durationMs: number): Record<string, unknown> {
  const { response, search, rerank } = outcome;
  const { meta } = response;
  return {
    audit: 'search',
    ...(trace.ids ? { traceId: trace.ids.traceId, spanId: trace.ids.spanId } : {}),
    tools: search.tools.length,
    ...(outcome.byReference ? { byReference: true } : {}),
    usableTools: search.usableTools,
    skippedTools: meta.skippedCount ?? 0,
    queries: search.query.length,
    maxResults: search.maxResults,
    ranker: meta.ranker,
    degraded: meta.degraded,
    semantic: meta.semantic,
    ...(meta.learning ? { learning: meta.learning } : {}),
    results: response.results.length,
    work: outcome.work,
    ...(rerank
      ? {
          llm: {
            candidates: rerank.candidates,
            promptTokens: rerank.promptTokens,
            cached: rerank.cached,
            shared: rerank.shared,
            modelMs: Math.round(rerank.modelMs),
            // Tokens billed for this request (0 when answered from the cache or a shared call).
            usage: rerank.usage ?? { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
          },
        }
      : {}),
    durationMs: Math.round(durationMs * 10) / 10,
  };
}

/** Counts one answered search: its ranker and degradation, its list size, and what its LLM stage cost. */
export function recordSearch(
  metrics: Metrics,
  tools: number,
  meta: { ranker: string; degraded?: string },
  rerank: RerankStats | undefined,
): void {
  metrics.searches.inc({ ranker: meta.ranker, degraded: meta.degraded ?? 'none' });
  metrics.toolsPerRequest.observe(tools);
  if (!rerank) return;
  metrics.cacheRequests.inc({ cache: 'llm', result: rerank.cached ? 'hit' : 'miss' });
  // A call made for this request (not a cached answer, not another request's call).
  if (!rerank.cached && !rerank.shared && rerank.modelMs > 0) {
    metrics.llmCallDuration.observe({ outcome: meta.degraded ?? 'ok' }, rerank.modelMs / 1000);
  }
  if (rerank.usage) {
    metrics.llmTokens.inc({ kind: 'prompt' }, rerank.usage.promptTokens);
    metrics.llmTokens.inc({ kind: 'completion' }, rerank.usage.completionTokens);
  }
}
