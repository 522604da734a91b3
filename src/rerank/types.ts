import type { RankedTool, ToolInfo } from '@catalog-search/core';

/**
 * Why the LLM stage did not fully run (`meta.degraded`). A fixed vocabulary, so clients and
 * dashboards can switch on it:
 * - `timeout`: the deadline came before the model's first grade (or left too little time to call it).
 * - `partial`: the deadline or a broken stream cut the answer; the grades that arrived are used
 *   (ranker stays `llm`), the rest of the tools keep their lexical order.
 * - `rate_limited`: the endpoint answered 429.
 * - `upstream_error`: the endpoint failed (5xx, connection refused or reset, auth or other 4xx).
 * - `invalid_output`: the model answered, but nothing in it was a usable grade for a candidate.
 * - `over_budget`: the queries and context alone fill LLM_PROMPT_TOKEN_BUDGET; no candidate fits, no call.
 * (The service adds `internal_error` when the stage itself throws, which is a bug.)
 * When the stage is off by configuration (no LLM_MODEL) nothing is degraded: `meta.ranker` is
 * `bm25` and `degraded` is absent, because BM25-only is that deployment's normal service.
 */
export type DegradedReason = 'timeout' | 'partial' | 'rate_limited' | 'upstream_error' | 'invalid_output' | 'over_budget';

export type RerankRanker = 'llm' | 'bm25';

/** One model judgement about one candidate, already checked against the candidate set. */
export interface CandidateGrade {
  /** Position of the tool in the request's `tools`. */
  toolIndex: number;
  grade: number;
  why: string;
}

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

export interface RerankInput {
  query: string[];
  context?: string;
  tools: ToolInfo[];
  /** The lexical ranking of the whole list (core's rankTools), best first. */
  lexical: RankedTool[];
}

export interface RerankRequestOptions {
  /** Tenant boundary: the answer cache is per project. */
  projectId: string;
  /** The request's deadline signal: aborts when the request's time is up (or it is abandoned). */
  signal: AbortSignal;
  /** Absolute deadline in `performance.now()` milliseconds. */
  deadline: number;
  /** Headers for the model call: the request's W3C trace context (`traceparent`, `tracestate`). */
  headers?: Record<string, string>;
}

export interface RerankOutcome {
  /** Every tool of the request, best first, with relevance and explanation. */
  ranked: RankedTool[];
  ranker: RerankRanker;
  degraded?: DegradedReason;
  /** Tokens the model call used (absent when no call was made for this request: cache, shared, skipped). */
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
