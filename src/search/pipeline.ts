import { DEFAULT_MAX_RESULTS, needsWholeRanking, type PreparedSearch, type RankCache, type SearchMeta, type SearchResponse } from '@catalog-search/core';
import type { FastifyBaseLogger } from 'fastify';
import type { TraceContext } from '../trace-context.js';
import type { Deadline } from './deadline.js';
import { rankLexically } from './lexical-stage.js';
import { rerankWithinDeadline } from './rerank-stage.js';
import type { Reranker, RerankStats } from './reranker.js';
import { respond } from './respond.js';
import { rankHybrid } from '../semantic/hybrid-ranking.js';
import type { SemanticStage } from '../semantic/semantic-stage.js';

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
  /** The embedding stage (src/semantic); undefined when EMBEDDINGS=off. */
  semantic?: SemanticStage | undefined;
  /** The caller's W3C trace context, carried on to outbound calls. */
  trace?: TraceContext | undefined;
}

export interface SearchOutcome {
  response: SearchResponse;
  /** What the rerank stage cost and saw, when it ran (for the audit log). */
  rerank?: RerankStats;
}

/**
 * The search pipeline, one stage after the other: lexical → semantic fusion → rerank under the
 * deadline → respond. Without a reranker the (fused) ranking is the answer (`meta.ranker: "bm25"`, no
 * `degraded`: BM25-only is that deployment's normal service, not a degradation). With one, the fused
 * ranking fills its prompt, so tools that share no word with the request reach the model.
 * `meta.semantic` says how the semantic stage ran.
 */
export async function searchCatalog(request: PreparedSearch, ctx: SearchContext): Promise<SearchOutcome> {
  const maxResults = request.maxResults ?? DEFAULT_MAX_RESULTS;
  const { reranker, requestId } = ctx;

  const lexical = await rankLexically(request, {
    // A reranker, semantic fusion or a tag boost (each can lift any matching tool into the answer) needs every match.
    limit: reranker || ctx.semantic || needsWholeRanking(request) ? Number.POSITIVE_INFINITY : maxResults,
    cache: ctx.rankCache,
    maxDescriptionChars: ctx.maxDescriptionChars,
  });

  const hybrid = ctx.semantic
    ? await rankHybrid(ctx.semantic, request, lexical, { projectId: ctx.projectId, deadline: ctx.deadline, ...(ctx.trace ? { headers: ctx.trace.headers } : {}) })
    : undefined;
  const candidates = hybrid?.ranked ?? lexical;
  const semantic = { semantic: hybrid?.status ?? 'off' };

  if (!reranker || request.tools.length === 0) {
    return { response: respond(candidates, request, { ranker: 'bm25', ...semantic, requestId }) };
  }
  const outcome = await rerankWithinDeadline(
    reranker,
    {
      query: request.query,
      ...(request.context === undefined ? {} : { context: request.context }),
      tools: request.tools,
      lexical: candidates,
      maxResults,
      rankCache: ctx.rankCache,
    },
    { projectId: ctx.projectId, deadline: ctx.deadline, ...(ctx.trace ? { headers: ctx.trace.headers } : {}) },
    ctx.log,
  );

  const meta: SearchMeta = { ranker: outcome.ranker, ...semantic, requestId, ...(outcome.degraded ? { degraded: outcome.degraded } : {}) };
  return { response: respond(outcome.ranked, request, meta), ...(outcome.stats ? { rerank: outcome.stats } : {}) };
}
