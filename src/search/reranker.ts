import type { DegradedReason, RankCache, RankedTool, ToolInfo } from '@catalog-search/core';
import type { Deadline } from './deadline.js';

/**
 * The contract of the pipeline's rerank stage. The LLM stage (src/rerank) implements it, and so can
 * any other reranker plugged in through `buildApp(config, { reranker })`. It must resolve by the
 * deadline; if it does not, the search answers with the lexical ranking (see rerank-stage.ts).
 */
export interface Reranker {
  rerank(request: RerankRequest, options: RerankOptions): Promise<RerankOutcome>;
}

export interface RerankRequest {
  query: string[];
  context?: string;
  tools: ToolInfo[];
  /** The lexical stage's ranking of every matching tool, best first. */
  lexical: RankedTool[];
  /**
   * How many results the answer will show (the pipeline cuts the ranking there): the model is asked
   * for at most this many (10–30). Default: 20 asked for.
   */
  maxResults?: number;
  /** The project's lexical rank cache, reused for rankings the reranker makes itself (per sub-query). */
  rankCache?: RankCache;
}

export interface RerankOptions {
  /** Tenant boundary: whatever the reranker keeps (answer cache, shared calls) is per project. */
  projectId: string;
  deadline: Deadline;
  /** Headers for outbound calls: the caller's W3C trace context (`traceparent`, `tracestate`). */
  headers?: Record<string, string>;
}

export type RerankOutcome =
  /**
   * The reranked order. `degraded: "partial"` (or `"answer_too_long"`): the answer was cut; the grades
   * that arrived are used, the rest is lexical.
   */
  | { ranker: 'llm'; ranked: RankedTool[]; degraded?: 'partial' | 'answer_too_long'; stats?: RerankStats }
  /** The reranker did not (fully) run: `ranked` is the lexical ranking, and `degraded` says why. */
  | { ranker: 'bm25'; ranked: RankedTool[]; degraded?: DegradedReason; stats?: RerankStats };

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

/** What the rerank call cost and saw, for the audit log. */
export interface RerankStats {
  /** Tokens the model call used; absent when none was made for this request (cache, shared call, skipped). */
  usage?: TokenUsage;
  /** Answered from the per-project cache. */
  cached: boolean;
  /** Joined an identical request's call that was already in flight. */
  shared: boolean;
  /** Candidates shown to the model and the prompt's size in tokens (o200k count). */
  candidates: number;
  promptTokens: number;
  /** Time spent waiting for the model, ms (0 when no call). */
  modelMs: number;
}
