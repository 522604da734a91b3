import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import type { AuthConfig, Config } from '../config/index.js';
import type { Services } from '../services.js';
import apiVersionPlugin from './api-version.js';
import authPlugin from './auth.js';
import metricsPlugin from './metrics.js';
import openapiPlugin from './openapi.js';

/** Every plugin of the service, before the routes: CORS, metrics, API-Version, the OpenAPI document, auth. */
export function registerPlugins(
  app: FastifyInstance,
  { config, auth, services }: { config: Readonly<Config>; auth: AuthConfig; services: Services },
): void {
  if (config.corsOrigins.length > 0) {
    // For routers whose client runs in a browser or an Electron renderer.
    app.register(cors, {
      origin: config.corsOrigins.includes('*') ? '*' : [...config.corsOrigins],
      methods: ['GET', 'POST', 'DELETE'],
      allowedHeaders: [
        'authorization',
        'content-type',
        'x-learning',
        'x-project-id',
        'x-request-id',
        'x-search-deadline-ms',
      ],
      exposedHeaders: [
        'x-request-id',
        'api-version',
        'retry-after',
        'x-ratelimit-limit',
        'x-ratelimit-remaining',
        'x-ratelimit-reset',
      ],
      maxAge: 600,
    });
  }
  if (config.metrics.enabled) {
    app.register(metricsPlugin, {
      metrics: services.metrics,
      path: config.metrics.port === undefined ? config.metrics.path : undefined,
    });
  }
  app.register(apiVersionPlugin);
  // Before the routes: it documents them as they are registered.
  app.register(openapiPlugin, { serveDocs: config.docs.enabled });
  app.register(authPlugin, { auth });
}
