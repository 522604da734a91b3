import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { API_VERSION, API_VERSION_HEADER } from '../schemas/api-version.js';

/** Every response says which API version answered it, errors and health checks included. */
async function apiVersionPlugin(app: FastifyInstance): Promise<void> {
  app.addHook('onSend', async (_request, reply) => {
    reply.header(API_VERSION_HEADER, API_VERSION);
  });
}

export default fp(apiVersionPlugin, { name: 'api-version', fastify: '5.x' });
