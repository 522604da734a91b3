import type { RankedTool, ToolInfo } from '@catalog-search/core';
import type { Reranker, RerankInput, RerankOutcome } from './types.js';

/**
 * Stage 2 under the deadline: the reranker's answer if it comes in time, else the reason it did
 * not. A failing or late reranker degrades the answer; it never fails the request. The LLM stage
 * answers by itself shortly before the deadline; this race is the backstop for any reranker
 * (`timeout`), and a reranker that throws is a bug (`internal_error`, logged).
 */
export async function rerankWithinDeadline(reranker: Reranker, input: RerankInput): Promise<RerankOutcome> {
  if (input.signal.aborted) return { ranker: 'bm25', degraded: 'timeout' };
  let onAbort: (() => void) | undefined;
  const deadline = new Promise<RerankOutcome>((resolve) => {
    onAbort = () => resolve({ ranker: 'bm25', degraded: 'timeout' });
    input.signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([
      reranker.rerank(input).catch((error: unknown): RerankOutcome => {
        input.log.warn({ err: error }, 'rerank failed; answering with the lexical ranking');
        return { ranker: 'bm25', degraded: 'internal_error' };
      }),
      deadline,
    ]);
  } finally {
    if (onAbort) input.signal.removeEventListener('abort', onAbort);
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
