import {
  DEFAULT_MAX_RESULTS,
  toSearchResult,
  type RankedTool,
  type SearchMeta,
  type SearchRequest,
  type SearchResponse,
} from '@catalog-search/core';
import { rankLexically } from './lexical-stage.js';
import { keepCandidates, rerankWithinDeadline } from './rerank-stage.js';
import type { SearchContext } from './types.js';

/**
 * The search pipeline: lexical prefilter → optional rerank under the deadline → response.
 * Without a reranker the lexical ranking is the answer (`meta.ranker: "bm25"`, no `degraded`).
 */
export async function searchCatalog(request: SearchRequest, ctx: SearchContext): Promise<SearchResponse> {
  const maxResults = request.maxResults ?? DEFAULT_MAX_RESULTS;
  const { reranker } = ctx;
  const candidates = rankLexically(request, {
    limit: reranker ? Math.max(maxResults, reranker.candidateCount) : maxResults,
    cache: ctx.rankCache,
    maxDescriptionChars: ctx.maxDescriptionChars,
  });

  if (!reranker || candidates.length === 0) return assembleResponse(candidates, maxResults, { ranker: 'bm25', requestId: ctx.requestId });

  const outcome = await rerankWithinDeadline(reranker, {
    request,
    candidates,
    maxResults,
    projectId: ctx.projectId,
    requestId: ctx.requestId,
    log: ctx.log,
    signal: ctx.deadline.signal,
    deadlineAt: ctx.deadline.at,
  });
  if (outcome.ranker === 'llm') {
    return assembleResponse(keepCandidates(outcome.ranked, candidates), maxResults, { ranker: 'llm', requestId: ctx.requestId });
  }
  return assembleResponse(candidates, maxResults, { ranker: 'bm25', degraded: outcome.degraded, requestId: ctx.requestId });
}

/** The wire answer: best first, at most maxResults, each tool through core's `toSearchResult`. */
export function assembleResponse(ranked: readonly RankedTool[], maxResults: number, meta: SearchMeta): SearchResponse {
  return { results: ranked.slice(0, maxResults).map(toSearchResult), meta };
}
