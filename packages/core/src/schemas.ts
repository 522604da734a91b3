// The wire contract of POST /v1/catalog/search. The service validates with these; the client checks responses with them.
import { Type, type Static } from '@sinclair/typebox';

export const MAX_QUERY_ITEMS = 16;
export const MAX_RESULTS_LIMIT = 100;
export const DEFAULT_MAX_RESULTS = 20;
/** A tool-set id (see tool-sets/tool-set-id.ts): base64url SHA-256. */
export const TOOL_SET_ID_PATTERN = '^[A-Za-z0-9_-]{43}$';
/** Names are identifiers, not prose (MCP caps tool names at 128): a tool with a longer name or key is skipped. */
export const MAX_NAME_CHARS = 512;
/** Skipped tools listed in `meta.skipped` at most; `meta.skippedCount` counts them all. */
export const MAX_SKIPPED_LISTED = 20;
/** Entries per filter or boost list, and characters per entry. */
export const MAX_FILTER_ITEMS = 64;
export const MAX_FILTER_ENTRY_CHARS = 256;
/** Per matching `boost.tags` tag, added to the calibrated relevance (seed 004's +0.2). */
export const TAG_BOOST = 0.2;

export const ToolInfoSchema = Type.Object(
  {
    toolKey: Type.String({
      minLength: 1,
      maxLength: MAX_NAME_CHARS,
      description:
        '`serverId:toolName`, unique within the list (a repeat is skipped). Defaults to `serverName:toolName`.',
    }),
    toolName: Type.String({
      minLength: 1,
      maxLength: MAX_NAME_CHARS,
      description: 'The tool name as the MCP server lists it (`name` is accepted too).',
    }),
    serverName: Type.String({
      maxLength: MAX_NAME_CHARS,
      description: 'Display name of the MCP server that offers the tool.',
    }),
    description: Type.Optional(Type.String({ description: 'Tool description (untrusted third-party text).' })),
    title: Type.Optional(
      Type.String({ maxLength: MAX_NAME_CHARS, description: 'Human-readable title (MCP `title`).' }),
    ),
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
    description: "One entry of the router's Available Tool List.",
  },
);
export type ToolInfo = Static<typeof ToolInfoSchema>;

export const McpToolSchema = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      description: 'The tool name as the server lists it; `toolKey` is `serverId:name`.',
    }),
    title: Type.Optional(Type.String()),
    description: Type.Optional(Type.String({ description: 'Untrusted third-party text.' })),
    inputSchema: Type.Object({}, { additionalProperties: true, description: 'JSON Schema of the arguments.' }),
    outputSchema: Type.Optional(Type.Object({}, { additionalProperties: true })),
    annotations: Type.Optional(
      Type.Object({}, { additionalProperties: true, description: 'MCP tool annotations (untrusted hints).' }),
    ),
    _meta: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  {
    $id: 'McpTool',
    additionalProperties: true,
    description: 'An MCP `Tool` object exactly as `tools/list` returns it.',
  },
);
export type McpTool = Static<typeof McpToolSchema>;

export const McpServerToolsSchema = Type.Object(
  {
    serverId: Type.String({
      minLength: 1,
      maxLength: MAX_NAME_CHARS,
      description: "The router's id for the server; the `toolKey` prefix.",
    }),
    serverName: Type.Optional(
      Type.String({ maxLength: MAX_NAME_CHARS, description: 'Display name; defaults to `serverId`.' }),
    ),
    tools: Type.Array(McpToolSchema, { description: "The `tools` of the server's `tools/list` result (all pages)." }),
  },
  { $id: 'McpServerTools', additionalProperties: false },
);
export type McpServerTools = Static<typeof McpServerToolsSchema>;

const patternList = (description: string) =>
  Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: MAX_FILTER_ENTRY_CHARS }), {
      maxItems: MAX_FILTER_ITEMS,
      description,
    }),
  );

export const SearchFilterSchema = Type.Object(
  {
    servers: patternList('Keep only tools of these servers (server id, the `toolKey` prefix, or `serverName`).'),
    excludeServers: patternList('Leave out tools of these servers (id or name).'),
    tools: patternList(
      'Rules over the tool name and `toolKey`: globs (`github_*`, `*delete*`), `/regex/` with optional flags `i`, `m`, `s` ' +
        '(RE2 syntax: linear time, no look-around or backreferences), and `!` to negate. A tool is kept when it matches ' +
        'no negated rule and, if any rule is not negated, at least one of those.',
    ),
    tags: patternList('Keep only tools with at least one of these tags (compared case-insensitively).'),
    readOnly: Type.Optional(
      Type.Boolean({ description: 'Keep only tools whose annotations say `readOnlyHint: true`.' }),
    ),
    excludeDestructive: Type.Optional(
      Type.Boolean({
        description:
          'Leave out tools that may be destructive. Following the MCP defaults, a tool is non-destructive only when ' +
          '`readOnlyHint` is true or `destructiveHint` is false; absent hints count as destructive.',
      }),
    ),
  },
  {
    $id: 'SearchFilter',
    additionalProperties: false,
    description:
      'Applied before ranking; a filter only ever narrows the answer. Annotations are hints from third-party servers, ' +
      'not guarantees: a filter on them is a convenience, not a security boundary.',
  },
);
export type SearchFilter = Static<typeof SearchFilterSchema>;

export const SearchBoostSchema = Type.Object(
  {
    tags: patternList(
      `Raise tools with these tags: +${TAG_BOOST} calibrated relevance per matching tag (capped at 1), for tools ` +
        'that match the request at all (relevance > 0). The explanation names the boost.',
    ),
  },
  { $id: 'SearchBoost', additionalProperties: false },
);
export type SearchBoost = Static<typeof SearchBoostSchema>;

/** The fields every request form shares. */
const requestFields = {
  query: Type.Array(Type.String({ minLength: 1 }), {
    minItems: 1,
    maxItems: MAX_QUERY_ITEMS,
    description:
      'One or more sub-queries (the steps of a multi-step task). Ranking reads the first 2,000 characters of each.',
  }),
  context: Type.Optional(
    Type.String({
      description:
        'Task background for the reranker. A platform it names (a word in the server name of few servers) ranks first among equivalent tools.',
    }),
  ),
  maxResults: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_RESULTS_LIMIT, default: DEFAULT_MAX_RESULTS })),
  filter: Type.Optional(SearchFilterSchema),
  boost: Type.Optional(SearchBoostSchema),
  minRelevance: Type.Optional(
    Type.Number({
      minimum: 0,
      maximum: 1,
      description: 'Leave out results below this relevance: nothing rather than unrelated tools.',
    }),
  ),
};

/**
 * The request without its tool list: what the service's schema validation checks strictly. The tool
 * list (`tools` or `servers`) is read by core's `readToolList`, one tool at a time, so that one
 * unusable tool is skipped and reported instead of failing the request.
 */
const toolSetField = Type.String({
  pattern: TOOL_SET_ID_PATTERN,
  description:
    'Instead of `tools` or `servers`: the id of a list this project sent before (`meta.toolSet` of that answer). ' +
    'Answered with 409 `TOOL_SET_UNKNOWN` when the service no longer has it: then send the list again.',
});

export const SearchEnvelopeSchema = Type.Object(
  { ...requestFields, toolSet: Type.Optional(toolSetField) },
  { additionalProperties: false },
);
export type SearchEnvelope = Static<typeof SearchEnvelopeSchema>;

export const ToolListSearchRequestSchema = Type.Object(
  {
    ...requestFields,
    tools: Type.Array(ToolInfoSchema, {
      description:
        "The router's whole Available Tool List. A tool that cannot be used is skipped and named in `meta.skipped`; " +
        'empty or `null` optional fields count as absent.',
    }),
  },
  { $id: 'ToolListSearchRequest', additionalProperties: false },
);
export type ToolListSearchRequest = Static<typeof ToolListSearchRequestSchema>;

export const GroupedSearchRequestSchema = Type.Object(
  {
    ...requestFields,
    servers: Type.Array(McpServerToolsSchema, {
      description: 'The tool list grouped by server, as `tools/list` returns it. Tools are checked as in `tools`.',
    }),
  },
  { $id: 'GroupedSearchRequest', additionalProperties: false },
);
export type GroupedSearchRequest = Static<typeof GroupedSearchRequestSchema>;

export const ReferenceSearchRequestSchema = Type.Object(
  { ...requestFields, toolSet: toolSetField },
  { $id: 'ReferenceSearchRequest', additionalProperties: false },
);
export type ReferenceSearchRequest = Static<typeof ReferenceSearchRequestSchema>;

/** Exactly one of `tools` (ToolInfo objects), `servers` (MCP tools grouped by server) or `toolSet` (a list sent before). */
export const SearchRequestSchema = Type.Union(
  [ToolListSearchRequestSchema, GroupedSearchRequestSchema, ReferenceSearchRequestSchema],
  {
    $id: 'SearchRequest',
  },
);
/** A search with its tool list (what the client takes: it sends references by itself). */
export type SearchRequest = ToolListSearchRequest | GroupedSearchRequest;

export const SearchResultSchema = Type.Object(
  {
    toolKey: Type.String(),
    toolName: Type.String(),
    serverName: Type.String(),
    description: Type.Optional(Type.String()),
    relevance: Type.Number({
      minimum: 0,
      maximum: 1,
      description: 'Calibrated relevance: comparable across requests.',
    }),
    explanation: Type.Optional(Type.String({ description: 'Why this tool was ranked here.' })),
    annotations: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { $id: 'SearchResult', additionalProperties: false },
);
export type SearchResult = Static<typeof SearchResultSchema>;

export const SkippedToolSchema = Type.Object(
  {
    index: Type.Integer({
      minimum: 0,
      description: 'Position in `tools` (for `servers`: in the tools of all servers, in order).',
    }),
    toolKey: Type.Optional(Type.String({ description: "The tool's key, when it had a usable one." })),
    reason: Type.String({ description: 'The field and what is wrong with it.' }),
  },
  { $id: 'SkippedTool', additionalProperties: false },
);
export type SkippedTool = Static<typeof SkippedToolSchema>;

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
 * - `answer_too_long`: the model's answer passed the service's size limits (64 KB of text, 1 MB of
 *   stream, 256 KB per event); reading stopped there. Grades that arrived before are used (ranker `llm`),
 *   else the ranking is lexical (`bm25`).
 * - `internal_error`: the rerank stage itself threw (a bug; logged).
 * When the stage is off by configuration (no LLM_MODEL) nothing is degraded: `meta.ranker` is
 * `bm25` and `degraded` is absent, because BM25-only is that deployment's normal service.
 */
export type DegradedReason =
  | 'timeout'
  | 'partial'
  | 'rate_limited'
  | 'upstream_error'
  | 'invalid_output'
  | 'over_budget'
  | 'answer_too_long'
  | 'internal_error';

/**
 * How the service's semantic (embedding) stage ran (`meta.semantic`). A fixed vocabulary like
 * DegradedReason, typed here once; validated as any string on the wire, since new values may be added
 * within v1:
 * - `hybrid`: every tool and the request had vectors; the ranking is fused;
 * - `partial`: some tools' vectors are still being embedded (a list seen for the first time); those
 *   tools rank lexically this time;
 * - `pending`: none of the list's vectors are ready yet; the answer is lexical;
 * - `off`: the stage is off (the default without an embeddings endpoint; `EMBEDDINGS=on` turns it on);
 * - `timeout`: the request's vector was not ready within its bound (EMBEDDINGS_QUERY_WAIT_MS);
 *   `rate_limited`, `upstream_error`, `invalid_response`: the source failed; `busy`: the source has too
 *   much work queued; `unavailable`: the source failed repeatedly and is skipped for a cool-down. The
 *   answer is lexical.
 */
export type SemanticStatus =
  | 'hybrid'
  | 'partial'
  | 'pending'
  | 'off'
  | 'unavailable'
  | 'timeout'
  | 'rate_limited'
  | 'upstream_error'
  | 'invalid_response'
  | 'busy';

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
      Type.Unsafe<SemanticStatus>(
        Type.String({
          description:
            'How the semantic (embedding) stage ran: `hybrid` (lexical and semantic rankings fused), `partial` (some tools of a new ' +
            "list are still being embedded in the background and rank lexically this time), `pending` (none yet: a list's first " +
            "search), `off` (the stage is not turned on: the default without an embeddings endpoint), or why it could not run (`timeout`: the request's vector was not ready within its bound; " +
            '`rate_limited`, `upstream_error`, `invalid_response`; `busy`: the embedding source has too much work queued, in all or ' +
            'from this project; `unavailable`: the source failed repeatedly and is skipped for a cool-down). New values may be added.',
        }),
      ),
    ),
    fused: Type.Optional(
      Type.Boolean({
        description:
          "true when meaning moved the answer: the semantic stage's similarities were fused into the ranking (or, with " +
          '`ranker: "llm"`, into the model\'s candidates). Absent, the ranking is lexical: with `ranker: "bm25"` it is exactly ' +
          'what the client package ranks locally for the same request.',
      }),
    ),
    requestId: Type.String(),
    toolSet: Type.Optional(
      Type.String({
        pattern: TOOL_SET_ID_PATTERN,
        description:
          'The id of the tool list searched: send it as `toolSet` instead of the same list next time. ' +
          'Absent when references are off, or when the list was sent in full and the service could not keep it (larger than its store).',
      }),
    ),
    skipped: Type.Optional(
      Type.Array(SkippedToolSchema, {
        maxItems: MAX_SKIPPED_LISTED,
        description: `Tools left out because they cannot be used (the first ${MAX_SKIPPED_LISTED}); present only when some were.`,
      }),
    ),
    skippedCount: Type.Optional(Type.Integer({ minimum: 1, description: 'How many tools were skipped in all.' })),
    sharedState: Type.Optional(
      Type.Literal('local', {
        description:
          'Present only when the replica answering could not use the state replicas share in Redis in time (down, ' +
          'or slower than REDIS_STATE_TIMEOUT_MS) and used its own instead for this search: its rate-limit count, tool ' +
          'sets, model answers. The answer is still whole; a `toolSet` it hands out may be unknown to other replicas.',
      }),
    ),
    sharedLearning: Type.Optional(
      Type.Literal('reloading', {
        description:
          'Present only when the deployment shares learning across projects (`LEARNING_SHARED`) and this search went ' +
          'without it: a DELETE /v1/catalog/feedback withdrew something since the replica answering last read the ' +
          'shared model, and it is reading the model again so as never to use what was withdrawn. The ' +
          "project's own learning still applies; shared learning comes back once the replica's reload is whole.",
      }),
    ),
    learning: Type.Optional(
      Type.Union([Type.Literal('raised'), Type.Literal('shared'), Type.Literal('unchanged')], {
        description:
          'Present only for a project that has reported tool use (POST /v1/catalog/feedback), or when shared learning raised a ' +
          "tool: `raised` when the project's past use raised a tool of this answer (its explanation says so), `shared` when " +
          'only shared learning did (`LEARNING_SHARED`: what enough other projects reported for similar requests, the ' +
          'explanation then says "used for similar requests in other projects"; or a tool that many projects used with its ' +
          'server\'s tools, "often used with its server\'s tools in other projects"), `unchanged` when nothing the project ' +
          'taught matched this request.',
      }),
    ),
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
