// The search pipeline, read top to bottom: prepare → lexical → semantic → (learning) → rerank under
// the deadline → respond. `runSearch` is the whole of it for one validated request; `searchCatalog`
// the ranking stages of a prepared search.
import {
  needsWholeRanking,
  type PreparedSearch,
  type RankCache,
  type RankedTool,
  type SearchEnvelope,
  type SearchMeta,
  type SearchResponse,
} from '@catalog-search/core';
import type { FastifyBaseLogger } from 'fastify';
import type { Learning } from '../learning/learning.js';
import type { LearningStep } from '../learning/learning-step.js';
import type { Metrics } from '../metrics/metrics.js';
import type { VectorProvider } from '../semantic/vector-provider.js';
import type { RequestToolList } from '../tool-sets/request-tools.js';
import type { ToolSetStore } from '../tool-sets/tool-set-store.js';
import { NO_TRACE, type RequestTrace } from '../tracing/request-trace.js';
import { recordSearch, type SearchOutcome } from './audit.js';
import { startDeadline, type Deadline } from '../waits/deadline.js';
import { workOfCpu, type FairShare } from '../fairness/fair-share.js';
import { rankLexically } from '../lexical/stage.js';
import { prepareRequest } from './prepare.js';
import type { ProjectRankCaches } from '../lexical/rank-caches.js';
import type { RankingThread } from '../lexical/ranking-thread.js';
import { rerankWithinDeadline, type Reranker, type RerankOutcome, type RerankStats } from '../rerank/stage.js';
import { answerableToolSet, respond } from './respond.js';
import { rankHybrid } from '../semantic/stage.js';
import type { FilterRulePool } from '../fairness/filter-rule-pool.js';

/** The service's parts a search uses (src/services.ts builds them once). */
export interface SearchServices {
  search: { maxDescriptionChars: number };
  toolSets: ToolSetStore;
  /** The worker pool that runs `filter.tools` rules off the event loop. */
  filterRules: FilterRulePool;
  fairShare: FairShare;
  rankCaches: ProjectRankCaches;
  /** The thread that long rankings run in, off the event loop (src/lexical/ranking-thread.ts). */
  rankingThread?: RankingThread | undefined;
  metrics: Metrics;
  vectors?: VectorProvider | undefined;
  reranker?: Reranker | undefined;
  learning?: Learning | undefined;
}

/** One validated search request, as the route hands it over. */
interface SearchRequest {
  envelope: SearchEnvelope;
  /** The tool list read before validation (prepare.ts's readRequestList). */
  readList: RequestToolList;
  projectId: string;
  /** False: the project refuses other projects' learning (its token's `useSharedLearning` claim). */
  useSharedLearning?: boolean | undefined;
  requestId: string;
  log: FastifyBaseLogger;
  trace: RequestTrace;
  /** The search's time budget, and the time already spent on the request when the deadline starts. */
  budgetMs: number;
  elapsedMs: () => number;
  /** Aborts when nobody waits for the answer any more (the caller hung up). */
  cancel: AbortSignal;
  /** Called once the search's CPU work is done and it starts waiting on a model or embeddings endpoint. */
  onWaiting?: (() => void) | undefined;
  /** False (`X-Learning: off`): rank without what the project (or shared learning) taught, e.g. to compare. */
  learning?: boolean;
}

export async function runSearch(request: SearchRequest, services: SearchServices): Promise<SearchOutcome> {
  // From before the filter rules: a wait for their thread ends at the deadline too.
  const deadline = startDeadline(request.budgetMs, { elapsedMs: request.elapsedMs(), cancel: request.cancel });
  try {
    return await searchWithin(deadline, request, services);
  } finally {
    deadline.dispose();
  }
}

async function searchWithin(
  deadline: Deadline,
  request: SearchRequest,
  services: SearchServices,
): Promise<SearchOutcome> {
  const { projectId, trace } = request;
  const prepared = await prepareRequest(request.envelope, request.readList, projectId, services, deadline);
  const { search } = prepared;
  // A hit: the project's analyses were kept (its tools need not all be known to them).
  services.metrics.cacheRequests.inc({ cache: 'rank', result: services.rankCaches.has(projectId) ? 'hit' : 'miss' });
  const rankCache = services.rankCaches.for(projectId);
  // Still remembered below when learning is off for this search: a report of it teaches as any other.
  const learning =
    request.learning === false
      ? undefined
      : await services.learning?.forSearch(projectId, request.useSharedLearning !== false);
  const outcome = await searchCatalog(search, {
    projectId,
    requestId: request.requestId,
    log: request.log,
    rankCache,
    othersWorking: () => services.fairShare.workingOtherThan(projectId),
    rankingThread: services.rankingThread,
    onWaiting: request.onWaiting,
    deadline,
    maxDescriptionChars: services.search.maxDescriptionChars,
    reranker: services.reranker,
    trace,
    vectors: services.vectors,
    learningStep: learning?.step,
    toolSetRef: prepared,
  });
  // Without shared learning while this replica reads the model again after a DELETE (docs/privacy.md).
  if (learning?.sharedWithheld) outcome.response.meta.sharedLearning = 'reloading';
  services.rankCaches.measure(projectId, rankCache);
  // The work charged at validation was an estimate; ranking's CPU time is what it cost.
  if (services.fairShare.enabled)
    services.fairShare.settleWork(projectId, prepared.estimatedWork, outcome.lexicalCpuMs);
  services.learning?.rememberSearch(
    projectId,
    request.requestId,
    search.query,
    outcome.response.results,
    prepared.toolSet,
  );
  recordSearch(services.metrics, search.tools.length, outcome.response.meta, outcome.rerank);
  const { response, rerank } = outcome;
  const work = prepared.filterWork + workOfCpu(outcome.lexicalCpuMs);
  return { response, ...(rerank ? { rerank } : {}), search, byReference: prepared.byReference, work };
}

/** Everything the ranking stages need besides the prepared search. */
export interface SearchContext {
  projectId: string;
  requestId: string;
  log: FastifyBaseLogger;
  /** This project's rank cache (never shared across projects). */
  rankCache: RankCache;
  /** How many searches other projects have being worked on: a long ranking lets them finish first (lexical/stage.ts). */
  othersWorking?: (() => number) | undefined;
  /** Where long rankings run, off the event loop; without it they run on the loop in steps. */
  rankingThread?: RankingThread | undefined;
  deadline: Deadline;
  /** Called once the search's CPU work is done and it starts waiting on a model or embeddings endpoint. */
  onWaiting?: (() => void) | undefined;
  maxDescriptionChars: number;
  reranker?: Reranker | undefined;
  /** The semantic stage's vectors (src/semantic); undefined when the stage is off (EMBEDDINGS). */
  vectors?: VectorProvider | undefined;
  /**
   * The list's tool-set id (`meta.toolSet`; the semantic stage keeps the list's keys by it), and for a
   * list sent in full, whether a store kept it (respond.ts's answerableToolSet).
   */
  toolSetRef?: { toolSet?: string | undefined; kept?: Promise<boolean> | undefined } | undefined;
  /** The learning step (src/learning), when the project has reported tool use; undefined: it has not. */
  learningStep?: LearningStep | undefined;
  /**
   * The request's trace (src/tracing/request-trace.ts): a child span per stage when tracing is on, the
   * caller's trace context on outbound calls either way. Attributes are counts and outcomes only.
   */
  trace?: RequestTrace | undefined;
}

/**
 * The ranking stages of a prepared search. Without a reranker the (fused) ranking is the answer
 * (`meta.ranker: "bm25"`, no `degraded`: BM25-only is that deployment's normal service, not a
 * degradation). With one, the fused ranking fills its prompt, so tools that share no word with the
 * request reach the model. `meta.semantic` says how the semantic stage ran.
 */
export async function searchCatalog(
  request: PreparedSearch,
  ctx: SearchContext,
): Promise<{ response: SearchResponse; rerank?: RerankStats; lexicalCpuMs: number }> {
  const trace = ctx.trace ?? NO_TRACE;
  const wholeListId = startRequestVector(request, ctx);
  const lexical = await trace.stage('search.lexical', () => rankByWords(request, ctx), lexicalSpan(request));

  // What follows waits on a model or an embeddings endpoint: the search gives up its work slot (fair-share.ts).
  if (ctx.vectors || ctx.reranker) ctx.onWaiting?.();
  const hybrid = ctx.vectors ? await rankByMeaning(ctx.vectors, request, lexical.ranked, ctx, wholeListId) : undefined;
  // Past use (src/learning) is added after the word and meaning rankings, before the model reads them.
  const afterLearning = ctx.learningStep?.apply(hybrid?.ranked ?? lexical.ranked, request, request.maxResults);
  const candidates = afterLearning?.ranked ?? hybrid?.ranked ?? lexical.ranked;
  const stages = stagesMeta(hybrid, afterLearning);

  const rerank =
    ctx.reranker && request.tools.length > 0
      ? await rerankCandidates(ctx.reranker, request, candidates, lexical.bySubQuery, ctx)
      : undefined;
  const meta: SearchMeta = rerank
    ? {
        ranker: rerank.ranker,
        ...stages,
        requestId: ctx.requestId,
        ...(rerank.degraded ? { degraded: rerank.degraded } : {}),
      }
    : { ranker: 'bm25', ...stages, requestId: ctx.requestId };
  const response = respond(rerank?.ranked ?? candidates, request, meta, await answerableToolSet(ctx.toolSetRef ?? {}));
  const lexicalCpuMs = lexical.cpuMs;
  return rerank?.stats ? { response, rerank: rerank.stats, lexicalCpuMs } : { response, lexicalCpuMs };
}

/**
 * Starts making the request's vector in the encoder's thread while this one ranks by words, when the
 * semantic stage is on and the search ranks the whole list its id names; returns that id, else undefined
 * (a filter left tools out, so the id does not name what is ranked).
 */
function startRequestVector(request: PreparedSearch, ctx: SearchContext): string | undefined {
  const listId = ctx.toolSetRef?.toolSet;
  const wholeListId = listId !== undefined && request.tools === request.list ? listId : undefined;
  if (ctx.vectors && wholeListId !== undefined)
    ctx.vectors.startRequest(
      ctx.projectId,
      request.query.filter((query) => query.trim() !== ''),
      wholeListId,
    );
  return wholeListId;
}

function rankByWords(request: PreparedSearch, ctx: SearchContext): ReturnType<typeof rankLexically> {
  const { reranker, vectors, learningStep } = ctx;
  return rankLexically(request, {
    // A reranker, semantic fusion, learning or a tag boost (each can lift any matching tool into the answer) needs every match.
    limit:
      reranker || vectors || learningStep || needsWholeRanking(request) ? Number.POSITIVE_INFINITY : request.maxResults,
    cache: ctx.rankCache,
    maxDescriptionChars: ctx.maxDescriptionChars,
    ...(ctx.othersWorking ? { turns: { projectId: ctx.projectId, othersWorking: ctx.othersWorking } } : {}),
    ...(ctx.rankingThread
      ? { thread: { pool: ctx.rankingThread, projectId: ctx.projectId, deadline: ctx.deadline } }
      : {}),
    // The rerank stage's prompt holds the best tools of every step of a multi-step task.
    bySubQuery: reranker !== undefined && request.query.length > 1,
  });
}

/** The lexical span's attributes: counts only. */
function lexicalSpan(request: PreparedSearch) {
  return ({ ranked }: { ranked: readonly RankedTool[] }) => ({
    'catalog_search.tools': request.tools.length,
    'catalog_search.queries': request.query.length,
    'catalog_search.matches': ranked.length,
  });
}

function rankByMeaning(
  vectors: VectorProvider,
  request: PreparedSearch,
  lexical: RankedTool[],
  ctx: SearchContext,
  wholeListId: string | undefined,
): ReturnType<typeof rankHybrid> {
  return (ctx.trace ?? NO_TRACE).stage(
    'search.semantic',
    // The embeddings calls' traceparent names the semantic span (tracing on) or this request (off).
    (headers) =>
      rankHybrid(vectors, request, lexical, {
        projectId: ctx.projectId,
        deadline: ctx.deadline,
        ...(headers ? { headers } : {}),
        ...(wholeListId !== undefined ? { listId: wholeListId } : {}),
      }),
    (fused) => ({ 'catalog_search.semantic': fused.status }),
  );
}

/**
 * What the semantic stage and learning put in `meta`, for either answer. meta.fused: meaning moved the
 * ranking; meta.learning "raised": past use did. Without either, a bm25 answer is the lexical ranking,
 * which the client's local fallback reproduces exactly.
 */
function stagesMeta(
  hybrid: Awaited<ReturnType<typeof rankHybrid>> | undefined,
  afterLearning: { status?: SearchMeta['learning'] | undefined } | undefined,
) {
  return {
    semantic: hybrid?.status ?? 'off',
    ...(hybrid?.fused ? { fused: true } : {}),
    ...(afterLearning?.status ? { learning: afterLearning.status } : {}),
  } satisfies Partial<SearchMeta>;
}

function rerankCandidates(
  reranker: Reranker,
  request: PreparedSearch,
  candidates: RankedTool[],
  bySubQuery: readonly (readonly number[])[],
  ctx: SearchContext,
): Promise<RerankOutcome> {
  return (ctx.trace ?? NO_TRACE).stage(
    'search.rerank',
    // The model call's traceparent names the rerank span (tracing on) or this request (off).
    (headers) =>
      rerankWithinDeadline(
        reranker,
        {
          query: request.query,
          ...(request.context === undefined ? {} : { context: request.context }),
          tools: request.tools,
          lexical: candidates,
          maxResults: request.maxResults,
          ...(bySubQuery.length > 0 ? { bySubQuery } : {}),
        },
        { projectId: ctx.projectId, deadline: ctx.deadline, ...(headers ? { headers } : {}) },
        ctx.log,
      ),
    rerankSpan,
  );
}

/** The rerank span's attributes: the outcome and the model call's counts, never request text. */
function rerankSpan({ ranker, degraded, stats }: RerankOutcome) {
  return {
    'catalog_search.ranker': ranker,
    ...(degraded ? { 'catalog_search.degraded': degraded } : {}),
    ...(stats
      ? {
          'catalog_search.llm.candidates': stats.candidates,
          'catalog_search.llm.prompt_tokens': stats.promptTokens,
          'catalog_search.llm.cached': stats.cached,
          'catalog_search.llm.shared': stats.shared,
        }
      : {}),
  };
}
