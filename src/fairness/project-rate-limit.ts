import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { ProblemError } from '../http/errors.js';
import type { Metrics } from '../metrics/metrics.js';
import { fallbackRateLimitStore } from './rate-limit-store.js';
import { projectTag, type SharedStore } from '../redis/shared-store.js';

/**
 * RATE_LIMIT_PER_MINUTE for the routes of the calling plugin: one bucket per project (and per
 * `bucket`, so that feedback reports never take a project's searches away), in Redis when the replicas
 * share one. Runs after authentication, so buckets are per project, and before the body is parsed, so
 * a throttled caller costs almost nothing.
 */
export async function limitRequestsPerProject(
  app: FastifyInstance,
  options: {
    perMinute: number;
    shared?: SharedStore | undefined;
    metrics: Metrics;
    bucket?: string;
    allowance: (max: number) => string;
  },
): Promise<void> {
  if (options.perMinute <= 0) return;
  const { bucket, shared, metrics, allowance } = options;
  await app.register(rateLimit, {
    max: options.perMinute,
    timeWindow: 60_000,
    hook: 'preParsing',
    // A project tag never has a colon: a bucket prefix cannot collide with another project's key.
    keyGenerator: (request) =>
      bucket === undefined ? projectTag(request.projectId) : `${bucket}:${projectTag(request.projectId)}`,
    ...(shared ? { store: fallbackRateLimitStore(shared) } : {}),
    onExceeded: () => metrics.rateLimited.inc(),
    errorResponseBuilder: (_request, context) =>
      new ProblemError(
        'RATE_LIMITED',
        `This project may ${allowance(context.max)} per minute; retry in ${Math.ceil(context.ttl / 1000)} s.`,
      ),
  });
}
