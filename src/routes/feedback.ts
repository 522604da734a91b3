import { FeedbackEnvelopeSchema } from '@catalog-search/core';
import compress from '@fastify/compress';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { ProblemError } from '../errors.js';
import type { Learning } from '../feedback/learning.js';
import { reportWork } from '../feedback/report-work.js';
import { FEEDBACK_PATHS, forgetRouteSchema, reportRouteSchema } from '../schemas/feedback.js';
import { FairShare } from '../search/fair-share.js';
import { limitRequestsPerProject } from '../plugins/project-rate-limit.js';
import type { Services } from '../services.js';
import { REQUEST_ENCODINGS } from './search.js';

/**
 * POST /v1/catalog/feedback (report tool use) and DELETE (forget it), on the /v1 and seed prefixes.
 * Authenticated and project-scoped like search; rate-limited and charged (requests in flight, bytes per
 * minute) by the same rules and limits as searches, in budgets of their own so that reports never take
 * a project's searches away.
 */
export default async function feedbackRoutes(
  app: FastifyInstance,
  { services, learning }: { services: Services; learning: Learning },
): Promise<void> {
  const { config, shared, metrics } = services;

  // Bodies compressed as for search (FEEDBACK_MAX_BODY_BYTES applies to the decompressed bytes), rather
  // than a gzip body read as JSON and refused as malformed.
  await app.register(compress, { global: false, requestEncodings: [...REQUEST_ENCODINGS] });

  await limitRequestsPerProject(app, {
    perMinute: config.rateLimitPerMinute,
    shared,
    metrics,
    bucket: 'feedback',
    allowance: (max) => `send ${max} feedback requests`,
  });

  // Reports have a work budget of their own, of the searches' size: learning's CPU is charged too.
  const fairShare = new FairShare(config.fairShare, { onRefused: (limit) => metrics.costLimited.inc({ limit }) });
  const admit = async (request: FastifyRequest, reply: FastifyReply, payload: Readable) => {
    const declared = Number(request.headers['content-length']) || 0;
    // A report waits for a work slot at most a search's budget (SEARCH_DEADLINE_MS).
    const slot = await fairShare.admit(request.projectId, declared, config.search.deadlineMs);
    reply.raw.once('close', () => slot.finish());
    return fairShare.meteredBody(request.projectId, payload, declared);
  };

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
        const answer = await learning.report(request.projectId, request.body.events, Date.now(), request.shareLearning);
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
      if (!(await learning.forget(request.projectId))) {
        throw new ProblemError(
          'STORE_UNAVAILABLE',
          'The shared store could not be reached: the other replicas still use what this project taught. Retry.',
        );
      }
      request.log.info({ audit: 'feedback-forget' }, 'feedback forgotten');
      return reply.code(204).send();
    });
  }
}
