import swagger from '@fastify/swagger';
import scalarApiReference from '@scalar/fastify-api-reference';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { OPENAPI_BASE } from '../openapi/document.js';
import { createDocumentTransforms } from '../openapi/document-transforms.js';
import { toYaml } from '../openapi/serialize.js';

interface OpenApiPluginOptions {
  /** Serve /docs, /openapi.json and /openapi.yaml (DOCS_ENABLED). */
  serveDocs: boolean;
}

/** Paths of the served spec and reference; hidden from the spec itself. */
const DOCS_PATHS = { reference: '/docs', json: '/openapi.json', yaml: '/openapi.yaml' } as const;

/**
 * The OpenAPI document is generated from the routes' own schemas (@fastify/swagger, dynamic mode):
 * the TypeBox schemas that validate requests and serialize responses are the ones documented.
 * Register it before the routes: it collects them as they are added.
 */
async function openapiPlugin(app: FastifyInstance, options: OpenApiPluginOptions): Promise<void> {
  await app.register(swagger, {
    openapi: structuredClone(OPENAPI_BASE),
    hideUntagged: false,
    ...createDocumentTransforms(),
  });

  if (!options.serveDocs) return;

  app.get(DOCS_PATHS.json, { schema: { hide: true } }, async (_request, reply) =>
    reply.type('application/json; charset=utf-8').header('access-control-allow-origin', '*').send(app.swagger()),
  );
  let yaml: string | undefined; // the document never changes after start: serialize it once
  app.get(DOCS_PATHS.yaml, { schema: { hide: true } }, async (_request, reply) => {
    yaml ??= toYaml(app.swagger());
    return reply.type('application/yaml; charset=utf-8').header('access-control-allow-origin', '*').send(yaml);
  });

  // Scalar serves its own bundled script from /docs/js/scalar.js: the page loads nothing from a
  // CDN, so it works offline and behind strict egress rules.
  await app.register(scalarApiReference, {
    routePrefix: DOCS_PATHS.reference,
    logLevel: 'warn',
    configuration: {
      content: () => app.swagger(),
      pageTitle: 'catalog-search API reference',
      defaultOpenAllTags: true,
      // Nothing leaves the browser except calls to this API: no web fonts, no telemetry, no AI
      // agent (it queries Scalar's registry), no developer toolbar.
      withDefaultFonts: false,
      telemetry: false,
      agent: { disabled: true },
      showDeveloperTools: 'never',
    },
  });
}

export default fp(openapiPlugin, { name: 'openapi', fastify: '5.x' });
