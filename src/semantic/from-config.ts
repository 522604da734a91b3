import type { FastifyBaseLogger } from 'fastify';
import type { EmbeddingsConfig } from '../config/index.js';
import { createEmbeddedSource } from './embedded-source.js';
import { createEndpointSource } from './endpoint-source.js';
import { VectorProvider, type VectorProviderOptions } from './vector-provider.js';
import { originOf } from '../logging/url-origin.js';

/** What the provider gets from the app: the cache budget, Redis when configured, a vector-cache counter. */
type VectorProviderDeps = Pick<VectorProviderOptions, 'memory' | 'shared' | 'onLookup'>;

/**
 * The semantic stage's vector provider as configured by EMBEDDINGS_* (docs/configuration.md): the
 * endpoint when one is set, else the embedded encoder, whose workers start loading the model at start
 * (`ready`, run by services.ts's ready hook) rather than on the first search, without holding the start
 * up. With `shared` (REDIS_URL) the replicas share vectors.
 */
export function vectorProviderFromConfig(
  config: EmbeddingsConfig,
  log: FastifyBaseLogger,
  deps: VectorProviderDeps,
): { provider: VectorProvider; ready(): Promise<void>; loading(): string | undefined } {
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
      loading: () => undefined,
    };
  }
  const embedder = createEmbeddedSource({ threads: config.threads, backgroundNice: config.backgroundNice });
  const provider = new VectorProvider(embedder, options);
  // What /readyz says until the model is loaded (services.ts's `loading`).
  let loading: string | undefined = 'the embedded encoder (EMBEDDINGS=on) is loading its model';
  return {
    provider,
    // Not awaited by the start: the model loads in its worker threads for seconds on a quiet host and
    // for much longer on a busy one (docs/self-hosting.md#image-size-and-cold-start), and inside
    // Fastify's onReady a load past its 10 s ended the start with FST_ERR_HOOK_TIMEOUT, naming neither
    // the encoder nor a setting. Meanwhile searches rank by words and say so: a list's tools are queued
    // for embedding and `meta.semantic` is "pending" (vector-provider.ts), as for any list not embedded
    // yet. /readyz answers 503 until it is loaded (`loading`), so that a load balancer sends traffic to
    // replicas that rank as well as the others.
    ready: async () => {
      log.info(
        { source: 'embedded', model: embedder.model },
        'semantic stage on: embedded encoder loading in the background; searches rank by words until it is loaded (meta.semantic "pending")',
      );
      void embedder.warmUp().then(
        ({ loadMs, backend, backgroundNice }) => {
          loading = undefined;
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
        (error: unknown) => {
          // Closed while loading (a quick shutdown): nothing failed.
          if (provider.closed) return;
          loading = 'the embedded encoder (EMBEDDINGS=on) failed to load its model (see the log)';
          log.error(
            { err: error, source: 'embedded', model: embedder.model },
            'the embedded encoder (EMBEDDINGS=on) failed to load: searches rank by words only, and /readyz answers 503',
          );
        },
      );
    },
    loading: () => loading,
  };
}
