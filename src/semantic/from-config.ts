import type { FastifyBaseLogger } from 'fastify';
import type { EmbeddingsConfig } from '../config.js';
import { createEmbeddedSource } from './embedded-source.js';
import { createEndpointSource } from './endpoint-source.js';
import { VectorProvider, type VectorProviderOptions } from './vector-provider.js';
import { originOf } from '../url-origin.js';

/** What the provider gets from the app: the cache budget, Redis when configured, a vector-cache counter. */
type VectorProviderDeps = Pick<VectorProviderOptions, 'memory' | 'shared' | 'onLookup'>;

/**
 * The semantic stage's vector provider as configured by EMBEDDINGS_* (docs/configuration.md): the
 * endpoint when one is set, else the embedded encoder, whose worker loads the model at start (`ready`,
 * run by services.ts's ready hook) rather than on the first search. With `shared` (REDIS_URL) the
 * replicas share vectors.
 */
export function vectorProviderFromConfig(
  config: EmbeddingsConfig,
  log: FastifyBaseLogger,
  deps: VectorProviderDeps,
): { provider: VectorProvider; ready(): Promise<void> } {
  const options = {
    ...deps,
    cacheBytes: config.cacheBytes,
    waitShare: config.waitShare,
    queryWaitMs: config.queryWaitMs,
    maxQueuedPerProject: config.maxQueuedPerProject,
    log,
  };
  const { endpoint } = config;
  if (endpoint) {
    const embedder = createEndpointSource({
      baseURL: endpoint.baseUrl,
      model: endpoint.model,
      scripts: endpoint.scripts,
      ...(endpoint.apiKey ? { apiKey: endpoint.apiKey } : {}),
    });
    return {
      provider: new VectorProvider(embedder, options),
      ready: async () =>
        log.info(
          { source: 'endpoint', model: endpoint.model, endpoint: originOf(endpoint.baseUrl) },
          'semantic stage on: embeddings endpoint',
        ),
    };
  }
  const embedder = createEmbeddedSource({ threads: config.threads, backgroundNice: config.backgroundNice });
  return {
    provider: new VectorProvider(embedder, options),
    ready: async () => {
      const { loadMs, backend, backgroundNice } = await embedder.warmUp();
      log.info(
        {
          source: 'embedded',
          model: embedder.model,
          loadMs: Math.round(loadMs),
          backend,
          queryThreads: config.threads,
          // undefined where a thread's priority cannot be set: lists then embed at the searches' priority.
          backgroundNice: backgroundNice ?? null,
        },
        'semantic stage on: embedded encoder loaded',
      );
    },
  };
}
