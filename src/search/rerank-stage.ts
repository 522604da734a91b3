import type { RankedTool } from '@catalog-search/core';
import type { Reranker, RerankInput, RerankOutcome } from './types.js';

/**
 * Stage 2 under the deadline: the reranker's answer if it comes in time, else the reason it did
 * not. A failing or late reranker degrades the answer; it never fails the request.
 */
export async function rerankWithinDeadline(reranker: Reranker, input: RerankInput): Promise<RerankOutcome> {
  if (input.signal.aborted) return { ranker: 'bm25', degraded: 'deadline' };
  let onAbort: (() => void) | undefined;
  const deadline = new Promise<RerankOutcome>((resolve) => {
    onAbort = () => resolve({ ranker: 'bm25', degraded: 'deadline' });
    input.signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([
      reranker.rerank(input).catch((error: unknown): RerankOutcome => {
        input.log.warn({ err: error }, 'rerank failed; answering with the lexical ranking');
        return { ranker: 'bm25', degraded: 'error' };
      }),
      deadline,
    ]);
  } finally {
    if (onAbort) input.signal.removeEventListener('abort', onAbort);
  }
}

/** Keeps only reranked tools that were candidates, so a reranker cannot invent or duplicate tools. */
export function keepCandidates(ranked: readonly RankedTool[], candidates: readonly RankedTool[]): RankedTool[] {
  const allowed = new Set(candidates.map((candidate) => candidate.index));
  const seen = new Set<number>();
  return ranked.filter((tool) => {
    if (!allowed.has(tool.index) || seen.has(tool.index)) return false;
    seen.add(tool.index);
    return true;
  });
}
