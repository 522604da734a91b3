import { FeedbackEnvelopeSchema, FeedbackRequestSchema, SearchRequestSchema } from '@catalog-search/core';
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import { canonicalHeaderName, SchemaComponents } from './schema-refs.js';
import { FEEDBACK_REQUEST_EXAMPLES } from '../schemas/feedback.js';
import { REQUEST_BODY_EXAMPLES, SearchBodySchema } from '../schemas/search.js';

/**
 * @fastify/swagger's `transform` (per route) and `transformObject` (whole document) hooks: they
 * turn the routes' schemas into clean OpenAPI without changing what the routes validate.
 */
export function createDocumentTransforms(): Pick<FastifyDynamicSwaggerOptions, 'transform' | 'transformObject'> {
  // Filled while @fastify/swagger walks the routes, emptied when it finishes the document.
  let components = new SchemaComponents();
  return {
    transform: ({ schema, url }) => {
      const routeSchema = schema as RouteSchema | undefined;
      if (routeSchema === undefined || routeSchema.hide === true) return { schema, url };
      return { schema: documentedSchema(routeSchema, components) as typeof schema, url };
    },
    transformObject: (documentObject) => {
      const document = 'openapiObject' in documentObject ? documentObject.openapiObject : documentObject.swaggerObject;
      const schemas = components.toComponents();
      components = new SchemaComponents();
      return finishDocument(document as unknown as OpenApiDocument, schemas) as typeof document;
    },
  };
}

type RouteSchema = Record<string, unknown> & {
  hide?: boolean;
  operationId?: string;
  body?: unknown;
  headers?: { properties?: Record<string, unknown> };
  response?: Record<string, Record<string, unknown>>;
};

type OpenApiDocument = {
  components?: Record<string, unknown>;
  paths?: Record<string, Record<string, Operation>>;
} & Record<string, unknown>;
type Operation = {
  operationId?: string;
  requestBody?: { content?: Record<string, Record<string, unknown>> };
  responses?: Record<string, { headers?: Record<string, unknown> }>;
};

/**
 * Last touches that @fastify/swagger has no option for: the $id schemas as components, request
 * examples beside the shared SearchRequest reference, and response headers as reusable components.
 */
function finishDocument(document: OpenApiDocument, schemas: Record<string, unknown>): OpenApiDocument {
  const headers: Record<string, unknown> = {};
  for (const pathItem of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(pathItem)) {
      const examples =
        operation.operationId === undefined
          ? undefined
          : (REQUEST_BODY_EXAMPLES[operation.operationId] ?? FEEDBACK_REQUEST_EXAMPLES[operation.operationId]);
      const json = operation.requestBody?.content?.['application/json'];
      if (examples !== undefined && json !== undefined) json.examples = examples;
      for (const response of Object.values(operation.responses ?? {})) {
        if (response.headers === undefined) continue;
        response.headers = Object.fromEntries(
          Object.entries(response.headers).map(([name, rawHeader]) => {
            const header = headerObject(rawHeader as HeaderObject);
            const known = headers[name];
            if (known !== undefined && JSON.stringify(known) !== JSON.stringify(header)) return [name, header];
            headers[name] = header;
            return [name, { $ref: `#/components/headers/${name}` }];
          }),
        );
      }
    }
  }
  // TypeBox writes a union as anyOf. The two request forms exclude each other (each has only its
  // own list field, no other fields allowed), so anyOf is exactly oneOf, which generators turn into
  // a union type.
  const searchRequest = schemas.SearchRequest as Record<string, unknown> | undefined;
  if (searchRequest?.anyOf !== undefined) {
    const { anyOf, ...rest } = searchRequest;
    schemas.SearchRequest = { ...rest, oneOf: anyOf };
  }
  const sortedHeaders = Object.fromEntries(
    Object.keys(headers)
      .sort()
      .map((name) => [name, headers[name]]),
  );
  // The conventional reading order: what the API is, where it is, then operations, then components.
  const { openapi, info, servers, tags, paths, components, ...rest } = document;
  return {
    openapi,
    info,
    servers,
    tags,
    ...rest,
    paths,
    components: { ...components, schemas, headers: sortedHeaders },
  };
}

type HeaderObject = { schema?: Record<string, unknown> } & Record<string, unknown>;

/** @fastify/swagger leaves a header's `required: true` inside its schema; OpenAPI wants it on the header. */
function headerObject(header: HeaderObject): HeaderObject {
  if (header.schema?.required !== true) return header;
  const { required: _required, ...schema } = header.schema;
  return { ...header, required: true, schema };
}

/**
 * The search route validates the envelope strictly and its tool list leniently (read by core, one tool
 * at a time, before validation); the spec documents the whole request, all three forms. The feedback route likewise reads
 * its events one by one.
 */
const DOCUMENTED_BODIES = new Map<unknown, unknown>([
  [SearchBodySchema, SearchRequestSchema],
  [FeedbackEnvelopeSchema, FeedbackRequestSchema],
]);

/** What @fastify/swagger should see for one route: refs for $id schemas, canonical header names. */
function documentedSchema(schema: RouteSchema, components: SchemaComponents): RouteSchema {
  const documented: RouteSchema = { ...schema };
  if (schema.body !== undefined)
    documented.body = components.reference(DOCUMENTED_BODIES.get(schema.body) ?? schema.body);
  if (schema.headers?.properties !== undefined) {
    documented.headers = {
      ...schema.headers,
      properties: Object.fromEntries(
        Object.entries(schema.headers.properties).map(([name, value]) => [canonicalHeaderName(name), value]),
      ),
    };
  }
  if (schema.response !== undefined) {
    documented.response = Object.fromEntries(
      Object.entries(schema.response).map(([status, response]) => [status, referenceResponse(response, components)]),
    );
  }
  return documented;
}

function referenceResponse(response: Record<string, unknown>, components: SchemaComponents): Record<string, unknown> {
  const content = response.content as Record<string, Record<string, unknown>> | undefined;
  if (content === undefined) return components.reference(response) as Record<string, unknown>;
  return {
    ...response,
    content: Object.fromEntries(
      Object.entries(content).map(([mediaType, media]) => [
        mediaType,
        { ...media, schema: components.reference(media.schema) },
      ]),
    ),
  };
}
