import { FeedbackEnvelopeSchema } from '@catalog-search/core';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { acceptCompressedBodies } from '../http/compressed-bodies.js';
import { ProblemError } from '../http/errors.js';
import { NOT_FORGOTTEN, type Learning } from '../learning/learning.js';
import { reportWork, storedReportWork } from '../learning/report-work.js';
import { FEEDBACK_PATHS, forgetRouteSchema, reportRouteSchema } from '../schemas/feedback.js';
import { admissionHook } from '../fairness/admission.js';
import { limitRequestsPerProject } from '../fairness/project-rate-limit.js';
import type { Services } from '../services.js';
import { answerBodiesThatFailedEarly } from '../http/failed-body.js';

/**
 * Retry-After (seconds) of a report refused because Redis could not store it. The client's report
 * queue tries a batch three times (packages/client, outcome-reports.ts), so 5 s between tries rides
 * out about 10 s of Redis away: a restart, or its reconnection backoff (at most 2 s).
 */
const STORE_RETRY_AFTER_SECONDS = 5;

/**
 * POST /v1/catalog/feedback (report tool use) and DELETE (forget it), on the /v1 and unversioned prefixes.
 * Authenticated and project-scoped like search; rate-limited and charged (requests in flight, bytes per
 * minute) by the same rules and limits as searches, in budgets of their own so that reports never take
 * a project's searches away.
 */
export default async function feedbackRoutes(
  app: FastifyInstance,
  { services, learning }: { services: Services; learning: Learning },
): Promise<void> {
  const { config, shared, metrics } = services;

  // Compressed as for search (FEEDBACK_MAX_BODY_BYTES counts decompressed bytes): gzip is not malformed JSON.
  await acceptCompressedBodies(app);

  await limitRequestsPerProject(app, {
    perMinute: config.rateLimitPerMinute,
    shared,
    metrics,
    bucket: 'feedback',
    allowance: (max) => `send ${max} feedback requests`,
  });
  // Last, after the decompression and the rate limit have added their preParsing hooks.
  answerBodiesThatFailedEarly(app);

  // A report waits for a work slot at most a search's budget (SEARCH_DEADLINE_MS).
  const fairShare = services.reportFairShare;
  const admit = admissionHook(fairShare, { maxWaitMs: () => config.search.deadlineMs });

  for (const { url, report, forget } of FEEDBACK_PATHS) {
    app.withTypeProvider<TypeBoxTypeProvider>().post(
      url,
      {
        schema: { ...reportRouteSchema(report, config), body: FeedbackEnvelopeSchema },
        bodyLimit: config.feedback.maxBodyBytes,
        decompress: {},
        onRequest: app.authenticate,
        ...(fairShare.enabled ? { preParsing: admit } : {}),
      },
      async (request, reply) => {
        if (fairShare.enabled) fairShare.chargeWork(request.projectId, reportWork(request.body.events));
        const result = await learning.report(request.projectId, request.body.events, request.shareLearning);
        if (!result.stored) {
          // 202 means stored: one kept only in this process would be lost with it, so the client resends it.
          metrics.feedbackEvents.inc({ result: 'refused' }, request.body.events.length);
          throw new ProblemError(
            'STORE_UNAVAILABLE',
            'The shared store could not be reached, so the reports were not stored. Retry after Retry-After seconds.',
            { headers: { 'retry-after': String(STORE_RETRY_AFTER_SECONDS) } },
          );
        }
        if (fairShare.enabled) fairShare.chargeWork(request.projectId, storedReportWork(result.cost));
        const { answer } = result;
        metrics.feedbackEvents.inc({ result: 'accepted' }, answer.accepted);
        metrics.feedbackEvents.inc({ result: 'ignored' }, answer.ignored.length);
        request.log.info(
          {
            audit: 'feedback',
            events: request.body.events.length,
            accepted: answer.accepted,
            ignored: answer.ignored.length,
          },
          'feedback',
        );
        return reply.code(202).send(answer);
      },
    );
    app.delete(url, { schema: forgetRouteSchema(forget), onRequest: app.authenticate }, async (request, reply) => {
      const forgotten = await learning.forget(request.projectId);
      // A retry cannot bring back a record Redis evicted: no Retry-After then.
      const retry = forgotten === 'unreachable' ? { 'retry-after': String(STORE_RETRY_AFTER_SECONDS) } : undefined;
      if (forgotten !== 'done')
        throw new ProblemError('STORE_UNAVAILABLE', NOT_FORGOTTEN[forgotten], { headers: retry });
      request.log.info({ audit: 'feedback-forget' }, 'feedback forgotten');
      return reply.code(204).send();
    });
  }
}
