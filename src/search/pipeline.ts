import { DEFAULT_MAX_RESULTS, needsWholeRanking, type PreparedSearch, type RankCache, type SearchMeta, type SearchResponse } from '@catalog-search/core';
import type { FastifyBaseLogger } from 'fastify';
import type { TraceContext } from '../trace-context.js';
import type { Deadline } from './deadline.js';
import { rankLexically } from './lexical-stage.js';
import { rerankWithinDeadline } from './rerank-stage.js';
import type { Reranker, RerankStats } from './reranker.js';
import { respond } from './respond.js';

/** Everything a search needs besides the request body; built per request by the route. */
export interface SearchContext {
  projectId: string;
  requestId: string;
  log: FastifyBaseLogger;
  /** This project's rank cache (never shared across projects). */
  rankCache: RankCache;
  deadline: Deadline;
  maxDescriptionChars: number;
  reranker?: Reranker | undefined;
  /** The caller's W3C trace context, carried on to outbound calls. */
  trace?: TraceContext | undefined;
}

export interface SearchOutcome {
  response: SearchResponse;
  /** What the rerank stage cost and saw, when it ran (for the audit log). */
  rerank?: RerankStats;
}

/**
 * The search pipeline, one stage after the other: lexical → rerank under the deadline → respond.
 * Without a reranker the lexical ranking is the answer (`meta.ranker: "bm25"`, no `degraded`:
 * BM25-only is that deployment's normal service, not a degradation).
 */
export async function searchCatalog(request: PreparedSearch, ctx: SearchContext): Promise<SearchOutcome> {
  const maxResults = request.maxResults ?? DEFAULT_MAX_RESULTS;
  const { reranker, requestId } = ctx;

  const lexical = await rankLexically(request, {
    // A reranker, or a tag boost (which can lift any matching tool into the answer), needs every match.
    limit: reranker || needsWholeRanking(request) ? Number.POSITIVE_INFINITY : maxResults,
    cache: ctx.rankCache,
    maxDescriptionChars: ctx.maxDescriptionChars,
  });

  // Recall stages that add to the lexical candidates go here, before the rerank.

  if (!reranker || request.tools.length === 0) {
    return { response: respond(lexical, request, { ranker: 'bm25', requestId }) };
  }
  const outcome = await rerankWithinDeadline(
    reranker,
    {
      query: request.query,
      ...(request.context === undefined ? {} : { context: request.context }),
      tools: request.tools,
      lexical,
      maxResults,
      rankCache: ctx.rankCache,
    },
    { projectId: ctx.projectId, deadline: ctx.deadline, ...(ctx.trace ? { headers: ctx.trace.headers } : {}) },
    ctx.log,
  );

  const meta: SearchMeta = { ranker: outcome.ranker, requestId, ...(outcome.degraded ? { degraded: outcome.degraded } : {}) };
  return { response: respond(outcome.ranked, request, meta), ...(outcome.stats ? { rerank: outcome.stats } : {}) };
}
