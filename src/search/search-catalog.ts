import {
  adjustRelevance,
  DEFAULT_MAX_RESULTS,
  needsWholeRanking,
  toSearchResult,
  type PreparedSearch,
  type RankedTool,
  type SearchMeta,
  type SearchResponse,
} from '@catalog-search/core';
import { rankLexically } from './lexical-stage.js';
import { keepRequestTools, rerankWithinDeadline } from './rerank-stage.js';
import type { RerankStats, SearchContext } from './types.js';

export interface SearchOutcome {
  response: SearchResponse;
  /** What the rerank stage cost and saw, when it ran (for the audit log). */
  rerank?: RerankStats;
}

/**
 * The search pipeline: lexical prefilter → optional rerank under the deadline → response.
 * Without a reranker the lexical ranking is the answer (`meta.ranker: "bm25"`, no `degraded`:
 * BM25-only is that deployment's normal service, not a degradation).
 */
export async function searchCatalog(request: PreparedSearch, ctx: SearchContext): Promise<SearchOutcome> {
  const maxResults = request.maxResults ?? DEFAULT_MAX_RESULTS;
  const { reranker } = ctx;
  const candidates = rankLexically(request, {
    // A tag boost can lift any matching tool into the answer: then the whole ranking is needed.
    limit: needsWholeRanking(request) ? Infinity : reranker ? Math.max(maxResults, reranker.candidateCount) : maxResults,
    cache: ctx.rankCache,
    maxDescriptionChars: ctx.maxDescriptionChars,
  });

  if (!reranker || request.tools.length === 0) {
    return { response: assembleResponse(candidates, request, { ranker: 'bm25', requestId: ctx.requestId }) };
  }

  const outcome = await rerankWithinDeadline(reranker, {
    request,
    candidates,
    rankCache: ctx.rankCache,
    maxResults,
    projectId: ctx.projectId,
    requestId: ctx.requestId,
    log: ctx.log,
    signal: ctx.deadline.signal,
    deadlineAt: ctx.deadline.at,
  });
  const stats = outcome.stats ? { rerank: outcome.stats } : {};
  if (outcome.ranker === 'llm') {
    const meta: SearchMeta = { ranker: 'llm', requestId: ctx.requestId, ...(outcome.degraded ? { degraded: outcome.degraded } : {}) };
    return { response: assembleResponse(keepRequestTools(outcome.ranked, request.tools), request, meta), ...stats };
  }
  return {
    response: assembleResponse(candidates, request, { ranker: 'bm25', degraded: outcome.degraded, requestId: ctx.requestId }),
    ...stats,
  };
}

/**
 * The wire answer: boosts and `minRelevance` applied (core's `adjustRelevance`, as in the client's
 * fallback), best first, at most maxResults, each tool through core's `toSearchResult`; the skipped
 * tools reported in meta.
 */
export function assembleResponse(ranked: readonly RankedTool[], request: PreparedSearch, meta: SearchMeta): SearchResponse {
  const maxResults = request.maxResults ?? DEFAULT_MAX_RESULTS;
  return { results: adjustRelevance(ranked, request).slice(0, maxResults).map(toSearchResult), meta: { ...meta, ...request.skippedMeta } };
}
