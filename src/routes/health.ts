import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { ProblemError, ProblemSchema, sendProblem } from '../errors.js';

const StatusSchema = Type.Object({ status: Type.String() }, { additionalProperties: false });

/** Liveness (the process serves HTTP) and readiness (it should get traffic: not while shutting down). */
export default async function healthRoutes(app: FastifyInstance): Promise<void> {
  app.get('/healthz', { schema: { response: { 200: StatusSchema } } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { schema: { response: { 200: StatusSchema, 503: ProblemSchema } } }, async (_request, reply) => {
    if (app.lifecycle.shuttingDown) {
      return sendProblem(reply, new ProblemError('SHUTTING_DOWN', 'The service is shutting down.'));
    }
    return { status: 'ready' };
  });
}
