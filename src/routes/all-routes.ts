import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.js';
import feedbackRoutes from './feedback.js';
import healthRoutes from './health.js';
import playgroundRoutes from './playground.js';
import searchRoutes from './search.js';

/** Every route of the service: probes, search, feedback when learning from use is on (FEEDBACK_LEARNING), the playground (PLAYGROUND). */
export default async function routes(app: FastifyInstance, { services }: { services: Services }): Promise<void> {
  await app.register(healthRoutes, { loading: services.loading });
  await app.register(searchRoutes, { services });
  if (services.learning) await app.register(feedbackRoutes, { services, learning: services.learning });
  if (services.config.playground.enabled) await app.register(playgroundRoutes, { config: services.config });
}
