import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/**
 * The API's major version. Within a major version only additive changes are made (see the
 * "Compatibility" section of openapi.yaml); anything else is a new major version under a new path
 * prefix (/v2/...).
 */
export const API_VERSION = '1';
export const API_VERSION_HEADER = 'API-Version';

/** Every response says which API version answered it, errors and health checks included. */
async function apiVersionPlugin(app: FastifyInstance): Promise<void> {
  app.addHook('onSend', async (_request, reply) => {
    reply.header(API_VERSION_HEADER, API_VERSION);
  });
}

export default fp(apiVersionPlugin, { name: 'api-version', fastify: '5.x' });
