import type { FastifyBaseLogger } from 'fastify';
import type { Deadline } from '../waits/deadline.js';
import { boundedWait, type DegradedReason, type RankedTool, type ToolInfo } from '@catalog-search/core';

/**
 * The rerank stage: its contract (`Reranker`, implemented by the LLM stage in src/rerank and by any
 * reranker plugged in through `buildApp(config, { reranker })`) and the race against the deadline
 * (`rerankWithinDeadline`). A reranker must resolve by the deadline; if it does not, the search answers
 * with the lexical ranking.
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
  /**
   * Each non-blank sub-query's own lexical order (tool indices, best first), from the lexical stage, so
   * that the prompt can hold the best tools of every step of a task without ranking them again.
   */
  bySubQuery?: readonly (readonly number[])[];
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

/**
 * The rerank stage under the deadline: the reranker's answer if it comes in time, else the lexical
 * ranking and the reason. A failing or late reranker degrades the answer; it never fails the
 * request. The LLM stage answers by itself shortly before the deadline; this race is the backstop
 * for any reranker (`timeout`), and a reranker that throws is a bug (`internal_error`, logged).
 * Whatever the reranker returns, only tools of this request are kept (keepRequestTools).
 */
export async function rerankWithinDeadline(
  reranker: Reranker,
  request: RerankRequest,
  options: RerankOptions,
  log: FastifyBaseLogger,
): Promise<RerankOutcome> {
  const { signal } = options.deadline;
  const lexical = (degraded: 'timeout' | 'internal_error'): RerankOutcome => ({
    ranker: 'bm25',
    ranked: request.lexical,
    degraded,
  });
  if (signal.aborted) return lexical('timeout');
  const answered = reranker.rerank(request, options).catch((error: unknown): RerankOutcome => {
    log.warn({ err: error }, 'rerank failed; answering with the lexical ranking');
    return lexical('internal_error');
  });
  const outcome = (await boundedWait(answered, { signal })) ?? lexical('timeout');
  return outcome.ranked === request.lexical
    ? outcome
    : { ...outcome, ranked: keepRequestTools(outcome.ranked, request.tools) };
}

/**
 * Keeps only reranked entries that are tools of this request (the very objects sent, at their
 * index) and drops repeats, so a reranker cannot invent, alter or duplicate tools.
 */
export function keepRequestTools(ranked: readonly RankedTool[], tools: readonly ToolInfo[]): RankedTool[] {
  const seen = new Set<number>();
  return ranked.filter((entry) => {
    if (tools[entry.index] !== entry.tool || seen.has(entry.index)) return false;
    seen.add(entry.index);
    return true;
  });
}
