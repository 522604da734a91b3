import { DEFAULT_MAX_RESULTS, needsWholeRanking, type PreparedSearch, type RankCache, type SearchMeta, type SearchResponse } from '@catalog-search/core';
import type { FastifyBaseLogger } from 'fastify';
import type { TraceContext } from '../trace-context.js';
import { inSpan, type TraceSpan } from '../tracing/spans.js';
import type { Deadline } from './deadline.js';
import { rankLexically } from './lexical-stage.js';
import { rerankWithinDeadline } from './rerank-stage.js';
import type { Reranker, RerankStats } from './reranker.js';
import { respond } from './respond.js';
import { rankHybrid } from '../semantic/hybrid-ranking.js';
import type { SemanticStage } from '../semantic/semantic-stage.js';
import type { LearnedRanking } from '../feedback/learning.js';

/** Everything a search needs besides the request body; built per request by the route. */
export interface SearchContext {
  projectId: string;
  requestId: string;
  log: FastifyBaseLogger;
  /** This project's rank cache (never shared across projects). */
  rankCache: RankCache;
  deadline: Deadline;
  /** Called once the search's CPU work is done and it starts waiting on a model or embeddings endpoint. */
  onWaiting?: (() => void) | undefined;
  maxDescriptionChars: number;
  reranker?: Reranker | undefined;
  /** The embedding stage (src/semantic); undefined when EMBEDDINGS=off. */
  semantic?: SemanticStage | undefined;
  /** The tool-set id of the request's list (`meta.toolSet`), when known: the stage keeps the list's keys by it. */
  listId?: string | undefined;
  /** The learning step (src/feedback), when the project has reported tool use; undefined: it has not. */
  learned?: LearnedRanking | undefined;
  /** The caller's W3C trace context, carried on to outbound calls (when tracing is off). */
  trace?: TraceContext | undefined;
  /**
   * The request's span when tracing is on: each stage gets a child span; the semantic span is the
   * parent of the embeddings calls, the rerank span of the model call. Attributes are counts and outcomes only: no project id, query or tool text.
   */
  span?: TraceSpan | undefined;
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

  const lexical = await inSpan(
    ctx.span,
    'search.lexical',
    () =>
      rankLexically(request, {
        // A reranker, semantic fusion, learning or a tag boost (each can lift any matching tool into the answer) needs every match.
        limit: reranker || ctx.semantic || ctx.learned || needsWholeRanking(request) ? Number.POSITIVE_INFINITY : maxResults,
        cache: ctx.rankCache,
        maxDescriptionChars: ctx.maxDescriptionChars,
      }),
    (ranked) => ({ 'catalog_search.tools': request.tools.length, 'catalog_search.queries': request.query.length, 'catalog_search.matches': ranked.length }),
  );

  const { semantic: semanticStage } = ctx;
  // What follows waits on a model or an embeddings endpoint: the search gives up its work slot (fair-share.ts).
  if (semanticStage || reranker) ctx.onWaiting?.();
  const hybrid = semanticStage
    ? await inSpan(
        ctx.span,
        'search.semantic',
        (span) => {
          // The embeddings calls' traceparent names the semantic span (tracing on) or this request (off).
          const headers = span?.outboundHeaders() ?? ctx.trace?.headers;
          return rankHybrid(semanticStage, request, lexical, {
            projectId: ctx.projectId,
            deadline: ctx.deadline,
            ...(headers ? { headers } : {}),
            // The id names the whole list: only when no filter left tools out.
            ...(ctx.listId !== undefined && request.tools === request.list ? { listId: ctx.listId } : {}),
          });
        },
        (fused) => ({ 'catalog_search.semantic': fused.status }),
      )
    : undefined;
  // Past use (src/feedback) is added after the word and meaning rankings, before the model reads them;
  // meta.learning goes with meta.semantic into both answers below.
  const learned = ctx.learned?.apply(hybrid?.ranked ?? lexical, request, maxResults);
  const candidates = learned?.ranked ?? hybrid?.ranked ?? lexical;
  // meta.fused: meaning moved this ranking; meta.learning "raised": past use did. Without either, a bm25
  // answer is the lexical ranking, which the client's local fallback reproduces exactly.
  const semantic = {
    semantic: hybrid?.status ?? 'off',
    ...(hybrid?.fused ? { fused: true } : {}),
    ...(learned ? { learning: learned.status } : {}),
  };

  if (!reranker || request.tools.length === 0) {
    return { response: respond(candidates, request, { ranker: 'bm25', ...semantic, requestId }) };
  }
  const outcome = await inSpan(
    ctx.span,
    'search.rerank',
    (span) => {
      // The model call's traceparent names the rerank span (tracing on) or this request (off).
      const headers = span?.outboundHeaders() ?? ctx.trace?.headers;
      return rerankWithinDeadline(
        reranker,
        {
          query: request.query,
          ...(request.context === undefined ? {} : { context: request.context }),
          tools: request.tools,
          lexical: candidates,
          maxResults,
          rankCache: ctx.rankCache,
        },
        { projectId: ctx.projectId, deadline: ctx.deadline, ...(headers ? { headers } : {}) },
        ctx.log,
      );
    },
    ({ ranker, degraded, stats }) => ({
      'catalog_search.ranker': ranker,
      ...(degraded ? { 'catalog_search.degraded': degraded } : {}),
      ...(stats
        ? { 'catalog_search.llm.candidates': stats.candidates, 'catalog_search.llm.prompt_tokens': stats.promptTokens, 'catalog_search.llm.cached': stats.cached, 'catalog_search.llm.shared': stats.shared }
        : {}),
    }),
  );

  const meta: SearchMeta = { ranker: outcome.ranker, ...semantic, requestId, ...(outcome.degraded ? { degraded: outcome.degraded } : {}) };
  return { response: respond(outcome.ranked, request, meta), ...(outcome.stats ? { rerank: outcome.stats } : {}) };
}
