import {
  DEFAULT_MAX_RESULTS,
  toSearchResult,
  type RankedTool,
  type SearchMeta,
  type SearchRequest,
  type SearchResponse,
} from '@catalog-search/core';
import { rankHybrid } from '../semantic/hybrid-ranking.js';
import { rankLexically } from './lexical-stage.js';
import { keepRequestTools, rerankWithinDeadline } from './rerank-stage.js';
import type { RerankStats, SearchContext } from './types.js';

export interface SearchOutcome {
  response: SearchResponse;
  /** What the rerank stage cost and saw, when it ran (for the audit log). */
  rerank?: RerankStats;
}

/**
 * The search pipeline: lexical prefilter → optional semantic fusion → optional rerank under the
 * deadline → response. Without a reranker the (fused) ranking is the answer (`meta.ranker: "bm25"`, no
 * `degraded`: BM25-only is that deployment's normal service, not a degradation). With one, the fused
 * ranking fills its prompt, so tools that share no word with the request reach the model.
 */
export async function searchCatalog(request: SearchRequest, ctx: SearchContext): Promise<SearchOutcome> {
  const maxResults = request.maxResults ?? DEFAULT_MAX_RESULTS;
  const { reranker } = ctx;
  const lexical = rankLexically(request, {
    // Fusion may lift any lexical match into the top: it needs them all.
    limit: ctx.semantic ? Number.POSITIVE_INFINITY : reranker ? Math.max(maxResults, reranker.candidateCount) : maxResults,
    cache: ctx.rankCache,
    maxDescriptionChars: ctx.maxDescriptionChars,
  });
  const hybrid = ctx.semantic
    ? await rankHybrid(ctx.semantic, request, lexical, { projectId: ctx.projectId, deadline: ctx.deadline })
    : undefined;
  const candidates = hybrid?.ranked ?? lexical;
  const semantic = { semantic: hybrid?.status ?? 'off' };

  if (!reranker || request.tools.length === 0) {
    return { response: assembleResponse(candidates, maxResults, { ranker: 'bm25', ...semantic, requestId: ctx.requestId }) };
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
    const meta: SearchMeta = { ranker: 'llm', ...semantic, requestId: ctx.requestId, ...(outcome.degraded ? { degraded: outcome.degraded } : {}) };
    return { response: assembleResponse(keepRequestTools(outcome.ranked, request.tools), maxResults, meta), ...stats };
  }
  return {
    response: assembleResponse(candidates, maxResults, { ranker: 'bm25', degraded: outcome.degraded, ...semantic, requestId: ctx.requestId }),
    ...stats,
  };
}

/** The wire answer: best first, at most maxResults, each tool through core's `toSearchResult`. */
export function assembleResponse(ranked: readonly RankedTool[], maxResults: number, meta: SearchMeta): SearchResponse {
  return { results: ranked.slice(0, maxResults).map(toSearchResult), meta };
}
