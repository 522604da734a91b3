import { Type, type Static } from '@sinclair/typebox';

/** The wire contract of POST /catalog/search. The service validates with these; the client checks responses with them. */

export const MAX_QUERY_ITEMS = 16;
export const MAX_RESULTS_LIMIT = 100;
export const DEFAULT_MAX_RESULTS = 20;

export const ToolInfoSchema = Type.Object(
  {
    toolKey: Type.String({ minLength: 1, description: '`serverId:toolName`, unique within the list.' }),
    toolName: Type.String({ minLength: 1, description: 'The tool name as the MCP server lists it.' }),
    serverName: Type.String({ description: 'Display name of the MCP server that offers the tool.' }),
    description: Type.Optional(Type.String({ description: 'Tool description (untrusted third-party text).' })),
    title: Type.Optional(Type.String({ description: 'Human-readable title (MCP `title`).' })),
    inputSchema: Type.Optional(
      Type.Object({}, { additionalProperties: true, description: 'The MCP `inputSchema` (JSON Schema object).' }),
    ),
    annotations: Type.Optional(
      Type.Object({}, { additionalProperties: true, description: 'MCP tool annotations, passed through to results.' }),
    ),
    tags: Type.Optional(Type.Array(Type.String(), { description: 'Free-form tags used as a ranking field.' })),
  },
  {
    $id: 'ToolInfo',
    // Routers may pass MCP tool objects as they are: unknown fields inside a tool are ignored.
    additionalProperties: true,
    description: 'One entry of the router\'s Available Tool List.',
  },
);
export type ToolInfo = Static<typeof ToolInfoSchema>;

export const SearchRequestSchema = Type.Object(
  {
    query: Type.Array(Type.String({ minLength: 1 }), {
      minItems: 1,
      maxItems: MAX_QUERY_ITEMS,
      description: 'One or more sub-queries (the steps of a multi-step task).',
    }),
    context: Type.Optional(Type.String({ description: 'Task background for the reranker.' })),
    tools: Type.Array(ToolInfoSchema, { description: 'The router\'s whole Available Tool List.' }),
    maxResults: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_RESULTS_LIMIT, default: DEFAULT_MAX_RESULTS }),
    ),
  },
  { $id: 'SearchRequest', additionalProperties: false },
);
export type SearchRequest = Static<typeof SearchRequestSchema>;

export const SearchResultSchema = Type.Object(
  {
    toolKey: Type.String(),
    toolName: Type.String(),
    serverName: Type.String(),
    description: Type.Optional(Type.String()),
    relevance: Type.Number({ minimum: 0, maximum: 1, description: 'Calibrated relevance: comparable across requests.' }),
    explanation: Type.Optional(Type.String({ description: 'Why this tool was ranked here.' })),
    annotations: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { $id: 'SearchResult', additionalProperties: false },
);
export type SearchResult = Static<typeof SearchResultSchema>;

/**
 * Why the service's LLM stage did not fully run (`meta.degraded`). A fixed vocabulary, so clients and
 * dashboards can switch on it:
 * - `timeout`: the deadline came before the model's first grade (or left too little time to call it).
 * - `partial`: the deadline or a broken stream cut the answer; the grades that arrived are used
 *   (ranker stays `llm`), the rest of the tools keep their lexical order.
 * - `rate_limited`: the endpoint answered 429.
 * - `upstream_error`: the endpoint failed (5xx, connection refused or reset, auth or other 4xx).
 * - `invalid_output`: the model answered, but nothing in it was a usable grade for a candidate.
 * - `over_budget`: the queries and context alone fill LLM_PROMPT_TOKEN_BUDGET; no candidate fits, no call.
 * - `internal_error`: the rerank stage itself threw (a bug; logged).
 * When the stage is off by configuration (no LLM_MODEL) nothing is degraded: `meta.ranker` is
 * `bm25` and `degraded` is absent, because BM25-only is that deployment's normal service.
 */
const DegradedReasonSchema = Type.Union([
  Type.Literal('timeout'),
  Type.Literal('partial'),
  Type.Literal('rate_limited'),
  Type.Literal('upstream_error'),
  Type.Literal('invalid_output'),
  Type.Literal('over_budget'),
  Type.Literal('internal_error'),
]);
export type DegradedReason = Static<typeof DegradedReasonSchema>;

export const SearchMetaSchema = Type.Object(
  {
    ranker: Type.Union([Type.Literal('bm25'), Type.Literal('llm')]),
    // Typed as the service's reasons or the client's `local_fallback:<reason>`, but validated as any
    // string, as since v1 began: new reasons may be added within v1 (clients handle unknown ones).
    degraded: Type.Optional(
      Type.Unsafe<DegradedReason | `local_fallback:${string}`>(
        Type.String({ description: 'Why the LLM stage did not fully run, when it did not.' }),
      ),
    ),
    semantic: Type.Optional(
      Type.String({
        description:
          'How the semantic (embedding) stage ran: `hybrid` (lexical and semantic rankings fused), `partial` (some tools of a new ' +
          'list are still being embedded and rank lexically this time), `pending` (none yet), `off`, or why it could not run ' +
          '(`timeout`, `rate_limited`, `upstream_error`, `invalid_response`; `busy`: the embedded encoder has too much work queued).',
      }),
    ),
    requestId: Type.String(),
  },
  // New meta fields may be added within v1; clients must ignore what they do not know.
  { $id: 'SearchMeta', additionalProperties: true },
);
export type SearchMeta = Static<typeof SearchMetaSchema>;

export const SearchResponseSchema = Type.Object(
  {
    results: Type.Array(SearchResultSchema),
    meta: SearchMetaSchema,
  },
  { $id: 'SearchResponse', additionalProperties: false },
);
export type SearchResponse = Static<typeof SearchResponseSchema>;
