import type { RankedTool, ToolInfo } from '@catalog-search/core';
import type { FastifyBaseLogger } from 'fastify';
import type { Reranker, RerankOptions, RerankOutcome, RerankRequest } from './reranker.js';

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
  const lexical = (degraded: 'timeout' | 'internal_error'): RerankOutcome => ({ ranker: 'bm25', ranked: request.lexical, degraded });
  if (signal.aborted) return lexical('timeout');
  let onAbort: (() => void) | undefined;
  const late = new Promise<RerankOutcome>((resolve) => {
    onAbort = () => resolve(lexical('timeout'));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const outcome = await Promise.race([
      reranker.rerank(request, options).catch((error: unknown): RerankOutcome => {
        log.warn({ err: error }, 'rerank failed; answering with the lexical ranking');
        return lexical('internal_error');
      }),
      late,
    ]);
    return outcome.ranked === request.lexical ? outcome : { ...outcome, ranked: keepRequestTools(outcome.ranked, request.tools) };
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
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
