import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { acceptCompressedBodies } from '../http/compressed-bodies.js';
import { budgetFromHeader, DEADLINE_HEADER } from '../http/deadline-header.js';
import { abortedWhenClientLeaves } from '../http/client-gone.js';
import { answerBodiesThatFailedEarly } from '../http/failed-body.js';
import { admissionHook } from '../fairness/admission.js';
import { limitRequestsPerProject } from '../fairness/project-rate-limit.js';
import { boundRedisWaits, trackLocalState, usedLocalState } from '../redis/local-state.js';
import { LEARNING_HEADER, SEARCH_PATHS, SearchBodySchema, searchRouteSchema } from '../schemas/search.js';
import { auditLine } from '../search/audit.js';
import { runSearch } from '../search/pipeline.js';
import { readRequestList } from '../search/prepare.js';
import { parseResentBodies } from '../tool-sets/resent-body.js';
import type { Services } from '../services.js';
import { requestTrace } from '../tracing/request-trace.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The search's time budget in ms (config, lowered by X-Search-Deadline-Ms): set by onRequest. */
    searchBudgetMs: number;
    /** The request's tool list (`tools`, `servers` or a `toolSet` reference): read by preValidation. */
    toolList: Awaited<ReturnType<typeof readRequestList>>;
    /** The search's hold on its project's work and waiting slots (when the fair share is on): set by preParsing. */
    searchSlot: { startWaiting(): void } | undefined;
  }
}

/** POST /catalog/search: authenticate → rate limit and admit per project → read the list → validate → pipeline → audit line. */
export default async function searchRoutes(app: FastifyInstance, { services }: { services: Services }): Promise<void> {
  const { config, fairShare } = services;
  await acceptCompressedBodies(app);
  parseResentBodies(app, services.toolSets);
  await limitRequestsPerProject(app, {
    ...services,
    perMinute: config.rateLimitPerMinute,
    allowance: (max) => `make ${max} searches`,
  });
  // Last, after the decompression and the rate limit have added their preParsing hooks.
  answerBodiesThatFailedEarly(app);
  app.decorateRequest('searchBudgetMs', 0);
  app.decorateRequest('toolList', undefined);
  app.decorateRequest('searchSlot', undefined);

  // Per project: searches worked on and waiting at once, and bytes per minute, checked before the body
  // is parsed, like the request rate (fair-share.ts); the pipeline charges the search's work.
  const admit = admissionHook(fairShare, {
    maxWaitMs: (request) => request.searchBudgetMs,
    onAdmitted: (request, slot) => {
      request.searchSlot = slot;
    },
  });

  // One handler on two paths: /v1/catalog/search and the unversioned path /catalog/search (one operation).
  for (const { url, operationId } of SEARCH_PATHS) {
    app.withTypeProvider<TypeBoxTypeProvider>().post(
      url,
      {
        schema: { ...searchRouteSchema(operationId, config), body: SearchBodySchema },
        decompress: {},
        onRequest: [
          trackLocalState, // first: the rate limit and every later step run inside it (meta.sharedState)
          app.authenticate,
          async (request) => {
            request.searchBudgetMs = budgetFromHeader(request.headers[DEADLINE_HEADER], config.search.deadlineMs);
            boundRedisWaits(request.searchBudgetMs);
          },
        ],
        ...(fairShare.enabled ? { preParsing: admit } : {}),
        preValidation: async (request) => {
          request.toolList = await readRequestList(request, config.search, services.toolSets);
        },
      },
      async (request, reply) => {
        const cancel = abortedWhenClientLeaves(reply);
        const trace = requestTrace(request.span, request.headers);
        const outcome = await runSearch(
          {
            envelope: request.body,
            readList: request.toolList!,
            projectId: request.projectId,
            useSharedLearning: request.useSharedLearning,
            requestId: request.id,
            log: request.log,
            trace,
            budgetMs: request.searchBudgetMs,
            elapsedMs: () => reply.elapsedTime,
            cancel,
            onWaiting: () => request.searchSlot?.startWaiting(),
            learning: request.headers[LEARNING_HEADER] !== 'off', // the header schema admits on and off only
          },
          services,
        );
        if (usedLocalState()) outcome.response.meta.sharedState = 'local';
        request.log.info(auditLine(outcome, trace, reply.elapsedTime), 'search');
        return outcome.response;
      },
    );
  }
}
