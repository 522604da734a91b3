import compress from '@fastify/compress';
import rateLimit from '@fastify/rate-limit';
import { DEFAULT_MAX_RESULTS, MAX_LISTED_PROBLEMS, prepareSearch, readToolList, SearchEnvelopeSchema, type ToolList } from '@catalog-search/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from '../config.js';
import { ProblemError, type FieldError } from '../errors.js';
import type { MemoryBudget } from '../memory/index.js';
import { recordSearch, type Metrics } from '../metrics/metrics.js';
import { SEARCH_PATHS, searchRouteSchema } from '../schemas/search.js';
import { budgetFromHeader, DEADLINE_HEADER, startDeadline } from '../search/deadline.js';
import { FairShare, type SearchSlot } from '../search/fair-share.js';
import { enforceLimits } from '../search/limits.js';
import { ProjectRankCaches } from '../search/project-caches.js';
import { searchCatalog } from '../search/pipeline.js';
import type { Reranker } from '../search/reranker.js';
import { ToolNamePool } from '../search/tool-name-pool.js';
import { fallbackRateLimitStore } from '../shared/rate-limit-store.js';
import { projectTag, type SharedStore } from '../shared/shared-store.js';
import { referencedList, registeredList, type RequestToolList } from '../tool-sets/request-tools.js';
import type { ToolSetStore } from '../tool-sets/tool-set-store.js';
import { traceContextOf } from '../trace-context.js';
import type { SemanticStage } from '../semantic/semantic-stage.js';
import type { Learning } from '../feedback/learning.js';

export const REQUEST_ENCODINGS = ['gzip', 'deflate', 'br', 'identity'] as const;

export interface SearchRouteOptions {
  config: Readonly<Config>;
  reranker?: Reranker | undefined;
  /** The service's one cache budget; the project rank caches are accounted in it. */
  memory: MemoryBudget;
  toolSets: ToolSetStore;
  /** Redis, when REDIS_URL is set: the rate-limit buckets are shared by all replicas. */
  shared?: SharedStore | undefined;
  metrics: Metrics;
  semantic?: SemanticStage | undefined;
  /** Learning from use (src/feedback); undefined when FEEDBACK_LEARNING is off. */
  learning?: Learning | undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The search's time budget in ms (config, lowered by X-Search-Deadline-Ms). */
    searchBudgetMs: number;
    /** The request's tool list (`tools`, `servers` or a `toolSet` reference), read before the envelope is validated. */
    toolList: RequestToolList | undefined;
    /** The search's hold on its project's work and waiting slots (when the fair share is on). */
    searchSlot: SearchSlot | undefined;
  }
}

/** POST /catalog/search: authenticate → rate limit per project → limits → validate → search → audit log. */
export default async function searchRoutes(app: FastifyInstance, options: SearchRouteOptions): Promise<void> {
  const { config, reranker, toolSets, shared, metrics, semantic, memory, learning } = options;
  const caches = new ProjectRankCaches({
    projects: config.search.cacheProjects,
    toolsPerProject: config.search.cacheToolsPerProject,
    memory,
  });

  // A 1,000-tool list is ~800 KB of JSON sent with every search: accept it compressed. The body
  // limit applies to the decompressed bytes, so a compression bomb gets 413.
  await app.register(compress, { global: false, requestEncodings: [...REQUEST_ENCODINGS] });

  if (config.rateLimitPerMinute > 0) {
    await app.register(rateLimit, {
      max: config.rateLimitPerMinute,
      timeWindow: 60_000,
      // After authentication, so buckets are per project; before the body is parsed, so a throttled
      // caller costs almost nothing.
      hook: 'preParsing',
      keyGenerator: (request) => projectTag(request.projectId),
      ...(shared ? { store: fallbackRateLimitStore(shared) } : {}),
      onExceeded: () => metrics.rateLimited.inc(),
      errorResponseBuilder: (_request, context) =>
        new ProblemError(
          'RATE_LIMITED',
          `This project may make ${context.max} searches per minute; retry in ${Math.ceil(context.ttl / 1000)} s.`,
        ),
    });
  }

  app.decorateRequest('searchBudgetMs', 0);
  app.decorateRequest('toolList', undefined);
  app.decorateRequest('searchSlot', undefined);
  // `filter.tools` rules run in a worker thread, never on the event loop (tool-name-pool.ts).
  const toolNames = new ToolNamePool();
  app.addHook('onClose', () => toolNames.close());

  // Per project: searches worked on and waiting at once, and work (tools × sub-queries) and bytes per
  // minute. Checked before the body is parsed, like the request rate; a search's work is charged once it
  // is validated, its filter's CPU time once the filter has run.
  const fairShare = new FairShare(config.fairShare, { onRefused: (limit) => metrics.costLimited.inc({ limit }) });
  const admit = async (request: FastifyRequest, reply: FastifyReply, payload: Readable) => {
    const declared = Number(request.headers['content-length']) || 0;
    const slot = await fairShare.admit(request.projectId, declared, request.searchBudgetMs);
    request.searchSlot = slot;
    reply.raw.once('close', () => slot.finish());
    // A caller that hung up while its search waited for a slot: the close event has passed already.
    if (request.raw.socket.destroyed) slot.finish();
    return fairShare.meteredBody(request.projectId, payload, declared);
  };

  // One handler on two paths: /v1/catalog/search and the seed path /catalog/search (one operation).
  for (const { url, operationId } of SEARCH_PATHS) {
    app.withTypeProvider<TypeBoxTypeProvider>().post(
      url,
      {
        // The schema validates the envelope strictly; the tool list was taken out of the body by
        // readTools and is read one tool at a time (the spec documents the whole request).
        schema: { ...searchRouteSchema(operationId, config), body: SearchEnvelopeSchema },
        decompress: {},
        onRequest: [
          app.authenticate,
          async (request) => {
            request.searchBudgetMs = budgetFromHeader(request.headers[DEADLINE_HEADER], config.search.deadlineMs);
          },
        ],
        ...(fairShare.enabled ? { preParsing: admit } : {}),
        preValidation: async (request) => {
          enforceLimits(request.body, config.search);
          request.toolList = (await referencedList(request.body, request.projectId, toolSets)) ?? sentList(readTools(request.body));
        },
      },
      async (request, reply) => {
        const body = request.body;
        const sent = request.toolList!;
        const rules = body.filter?.tools ?? [];
        const filtered = rules.length > 0 ? await toolNames.run(request.projectId, rules, sent.list.tools) : undefined;
        // Every run is charged, refused or not: the CPU was spent either way.
        if (filtered !== undefined && fairShare.enabled) fairShare.chargeCpu(request.projectId, filtered.ms);
        const prepared = prepareSearch(body, sent.list, filtered ? { toolNames: filtered.run } : {});
        if (!prepared.ok) throw invalidRequest(prepared.problems);
        // A list sent in full is kept for references only once the request is known to be valid.
        const { toolSet, kept, byReference } = sent.byReference ? sent : registeredList(sent.list, request.projectId, toolSets);
        const search = prepared.search;
        if (fairShare.enabled) fairShare.chargeWork(request.projectId, search.tools.length * search.query.length);
        // With tracing on, the request span carries the trace (and names this service's span id).
        const { span } = request;
        const trace = span ? undefined : traceContextOf(request.headers.traceparent, request.headers.tracestate);
        const traceIds = span ?? trace;
        const hangUp = new AbortController();
        reply.raw.once('close', () => {
          if (!reply.raw.writableFinished) hangUp.abort();
        });
        // A hit: the project's analyses were kept (its tools need not all be known to them).
        metrics.cacheRequests.inc({ cache: 'rank', result: caches.has(request.projectId) ? 'hit' : 'miss' });
        const rankCache = caches.for(request.projectId);
        const learned = await learning?.forSearch(request.projectId);
        const deadline = startDeadline(request.searchBudgetMs, { elapsedMs: reply.elapsedTime, cancel: hangUp.signal });
        const { response, rerank } = await searchCatalog(search, {
          projectId: request.projectId,
          requestId: request.id,
          log: request.log,
          rankCache,
          onWaiting: () => request.searchSlot?.startWaiting(),
          deadline,
          maxDescriptionChars: config.search.maxDescriptionChars,
          reranker,
          trace,
          span,
          semantic,
          learned,
          listId: toolSet,
        }).finally(() => deadline.dispose());
        caches.measure(request.projectId, rankCache);
        learning?.rememberSearch(request.projectId, request.id, search.query, response.results);
        // The other replicas can use the id only once the list is stored (bounded by REDIS_TIMEOUT_MS);
        // a list no store kept gets no id, so that its caller sends it in full again.
        if (toolSet !== undefined && (kept === undefined || (await kept))) response.meta.toolSet = toolSet;
        recordSearch(metrics, search.tools.length, response.meta, rerank);
        request.log.info(
          {
            // requestId and projectId are bound to request.log already.
            audit: 'search',
            ...(traceIds ? { traceId: traceIds.traceId, spanId: traceIds.spanId } : {}),
            tools: search.tools.length,
            ...(byReference ? { byReference: true } : {}),
            usableTools: search.usableTools,
            skippedTools: response.meta.skippedCount ?? 0,
            queries: body.query.length,
            maxResults: body.maxResults ?? DEFAULT_MAX_RESULTS,
            ranker: response.meta.ranker,
            degraded: response.meta.degraded,
            semantic: response.meta.semantic,
            ...(response.meta.learning ? { learning: response.meta.learning } : {}),
            results: response.results.length,
            ...(rerank
              ? {
                  llm: {
                    candidates: rerank.candidates,
                    promptTokens: rerank.promptTokens,
                    cached: rerank.cached,
                    shared: rerank.shared,
                    modelMs: Math.round(rerank.modelMs),
                    // Tokens billed for this request (0 when answered from the cache or a shared call).
                    usage: rerank.usage ?? { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
                  },
                }
              : {}),
            durationMs: Math.round(reply.elapsedTime * 10) / 10,
          },
          'search',
        );
        return response;
      },
    );
  }
}

/**
 * Takes the tool list (`tools` or `servers`) out of the body and reads it with core: each tool on
 * its own, unusable ones skipped and reported. Only a malformed list itself (both forms, a server
 * without an id, ...) is a 400. Runs before validation, so the schema sees the envelope alone.
 */
function readTools(body: unknown): ToolList | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const fields = body as Record<string, unknown>;
  const reading = readToolList({ tools: fields.tools, servers: fields.servers });
  if (!reading.ok) throw invalidRequest(reading.problems);
  delete fields.tools;
  delete fields.servers;
  return reading.list;
}

function sentList(list: ToolList | undefined): RequestToolList | undefined {
  return list === undefined ? undefined : { list, byReference: false };
}

function invalidRequest(problems: readonly FieldError[]): ProblemError {
  const first = problems[0]!;
  return new ProblemError('INVALID_REQUEST', `body ${first.field}: ${first.message}`, { errors: problems.slice(0, MAX_LISTED_PROBLEMS) });
}
