import type { FastifyInstance } from 'fastify';
import { ProblemError, sendProblem } from '../http/errors.js';
import { livenessRouteSchema, readinessRouteSchema } from '../schemas/health.js';

/**
 * Liveness (the process serves HTTP) and readiness (it should get traffic: not while something it ranks
 * with is still loading, as the embedded encoder's model, nor while shutting down).
 */
export default async function healthRoutes(
  app: FastifyInstance,
  { loading }: { loading: () => string | undefined },
): Promise<void> {
  app.get('/healthz', { schema: livenessRouteSchema() }, async () => ({ status: 'ok' }));

  app.get('/readyz', { schema: readinessRouteSchema() }, async (_request, reply) => {
    if (app.lifecycle.shuttingDown) {
      return sendProblem(reply, new ProblemError('SHUTTING_DOWN', 'The service is shutting down.'));
    }
    const still = loading();
    if (still !== undefined) {
      return sendProblem(reply, new ProblemError('STARTING', `Not ready yet: ${still}.`));
    }
    return { status: 'ready' };
  });
}
