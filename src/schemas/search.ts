import {
  DEFAULT_MAX_RESULTS,
  MAX_FILTER_ITEMS,
  MAX_NAME_CHARS,
  MAX_NESTING_DEPTH,
  MAX_QUERY_ITEMS,
  MAX_RESULTS_LIMIT,
  MAX_SKIPPED_LISTED,
  RANKED_QUERY_CHARS,
  SearchEnvelopeSchema,
  SearchResponseSchema,
} from '@catalog-search/core';
import { Type } from '@sinclair/typebox';
import type { Config } from '../config/index.js';
import { bodyTooLargeDetail } from '../http/errors.js';
import {
  COMMON_RESPONSE_HEADERS,
  EXAMPLE_REQUEST_ID,
  RATE_LIMIT_HEADERS,
  problemResponse,
  retryAfterHeader,
  tooManyRequestsHeaders,
  unauthorizedHeaders,
  unsupportedMediaTypeResponse,
} from './responses.js';
import {
  EXAMPLE_DEGRADED_SEARCH_RESPONSE,
  EXAMPLE_FILTERED_SEARCH_REQUEST,
  EXAMPLE_GROUPED_SEARCH_REQUEST,
  EXAMPLE_SEARCH_BY_REFERENCE,
  EXAMPLE_SEARCH_REQUEST,
  EXAMPLE_SEARCH_RESPONSE,
  EXAMPLE_SKIPPED_SEARCH_RESPONSE,
  EXAMPLE_TOOL_SET,
} from './search-examples.js';

/**
 * What the search route validates: the envelope strictly, and the tool list (`tools` or `servers`)
 * passed through untouched, since prepare.ts has read it before validation, one tool at a time (an
 * unusable tool is skipped, not a 400). The spec documents the whole request (SearchRequest).
 */
export const SearchBodySchema = Type.Object(
  { ...SearchEnvelopeSchema.properties, tools: Type.Optional(Type.Unknown()), servers: Type.Optional(Type.Unknown()) },
  { additionalProperties: false },
);

/** The versioned path is the one to integrate against; the unversioned path serves the same operation. */
export const SEARCH_PATHS = [
  { url: '/v1/catalog/search', operationId: 'searchCatalog' },
  { url: '/catalog/search', operationId: 'searchCatalogUnversioned' },
] as const;

type SearchLimits = Pick<Config['search'], 'deadlineMs' | 'maxTools' | 'maxQueryChars' | 'maxContextChars'> & {
  bodyLimitBytes: number;
  rateLimitPerMinute: number;
  fairShare: Config['fairShare'];
};

function searchLimits(config: Readonly<Config>): SearchLimits {
  return {
    deadlineMs: config.search.deadlineMs,
    maxTools: config.search.maxTools,
    maxQueryChars: config.search.maxQueryChars,
    maxContextChars: config.search.maxContextChars,
    bodyLimitBytes: config.http.bodyLimitBytes,
    rateLimitPerMinute: config.rateLimitPerMinute,
    fairShare: config.fairShare,
  };
}

/** `X-Learning: off` answers a search without the learned boost (additive to v1). */
export const LEARNING_HEADER = 'x-learning';

/**
 * Request headers of the search operation. They are checked by the route's hooks (auth and
 * deadline run before validation and answer with their own errors); the schema documents them and
 * accepts exactly what those checks accept.
 */
const SearchHeadersSchema = Type.Object({
  'x-search-deadline-ms': Type.Optional(
    Type.String({
      pattern: '^[0-9]{1,9}$',
      description:
        "The caller's remaining time budget in integer milliseconds (≥ 1). The service answers within " +
        '`min(X-Search-Deadline-Ms, SEARCH_DEADLINE_MS)` of receiving the request, falling back to the lexical ' +
        'ranking (`meta.ranker: "bm25"`, `meta.degraded: "timeout"`) when the LLM rerank would not finish in time.',
      examples: ['1500'],
    }),
  ),
  [LEARNING_HEADER]: Type.Optional(
    Type.Union([Type.Literal('on'), Type.Literal('off')], {
      description:
        '`off`: rank without what the project taught through `POST /v1/catalog/feedback` (and without shared ' +
        'learning), as if it had never reported; the answer then has no `meta.learning`. For comparing the ranking ' +
        'with and without learning (the playground does). `on` (the default): learning applies. The search is still ' +
        'remembered for reports either way.',
      examples: ['off'],
    }),
  ),
  'x-project-id': Type.Optional(
    Type.String({
      description:
        'Optional consistency check: when sent, it must equal the token\'s project claim (`""` and ' +
        '`UNASSIGNED_PROJECT_ID` both mean the unassigned project), else the request is refused with 403.',
      examples: ['proj_8f14e45f'],
    }),
  ),
  'x-request-id': Type.Optional(
    Type.String({
      description:
        'Your id for this request (1–128 characters of `A–Z a–z 0–9 . _ : @ / + = -`). It is echoed in the ' +
        "`X-Request-Id` response header, `meta.requestId`, problem bodies and the service's logs. Other values " +
        'are replaced by a generated UUID.',
      examples: [EXAMPLE_REQUEST_ID],
    }),
  ),
});

const mib = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;

function describeSearch(limits: SearchLimits, operationId: string): string {
  const unversionedNote =
    operationId === 'searchCatalogUnversioned'
      ? '**This is the unversioned path of `POST /v1/catalog/search`**: same request, response, errors and ' +
        'headers. It stays supported for the whole of v1; new integrations should call `/v1/catalog/search`.\n\n'
      : '';
  return (
    unversionedNote +
    "Ranks the router's whole Available Tool List against a task and returns the best tools first, each with a " +
    'calibrated `relevance` (0–1, comparable across requests) and a short `explanation`.\n\n' +
    'The router sends its complete tool list (`tools` or `servers`), or refers to a list it sent before ' +
    "(`toolSet`). Nothing is shared between projects (the project is the token's project claim).\n\n" +
    '**Tool-set references.** Every answer to a request with `tools` or `servers` carries `meta.toolSet`: the ' +
    'SHA-256 (base64url) of the canonical form of its usable tools (the flat list, whichever form was sent), the ' +
    'same on every replica and in the client package. Send `toolSet: "<id>"` instead of the list while it is ' +
    'unchanged: about 150 bytes instead of ~800 KB for 1,000 tools, and the service searches the list it holds ' +
    'without parsing it again (tools skipped when it was sent were reported then). When the service no longer ' +
    'has it (restart, eviction, `TOOL_SET_TTL_MS`), it answers 409 `TOOL_SET_UNKNOWN`: send the list again (the ' +
    'client package does all this by itself). A changed list has another id.\n\n' +
    'Pipeline: verify the bearer token → prepare (limits, the tool list, validation, filters) → lexical ' +
    "(identifier-aware BM25F) → semantic (similarity fused in once the list's vectors are ready; `meta.semantic`) → " +
    'LLM rerank under the deadline → respond (calibrated relevance). When the model is slow or failing the service still answers in ' +
    'time with the lexical ranking and says so: `meta.ranker` is `bm25` and `meta.degraded` names the reason ' +
    '(`timeout`, `rate_limited`, `upstream_error`, `invalid_output`, `over_budget`, `answer_too_long`, ' +
    '`internal_error`); when a ' +
    'streamed answer was cut, the grades that arrived are used: `meta.ranker` is `llm` and `meta.degraded` is ' +
    "`partial` (or `answer_too_long` when the model's answer passed 64 KB and reading stopped there; without " +
    'grades before that point the ranker is `bm25` with the same reason). A BM25-only deployment (no LLM configured) answers `bm25` without `degraded`.\n\n' +
    'Tool descriptions are treated as untrusted third-party text: they are ranked, never followed as ' +
    'instructions. An LLM `explanation` is reduced to one line of plain text (at most 200 characters, no markup, ' +
    'no control characters), but it is still model output about third-party text: treat it as untrusted ' +
    '(escape it when rendering, never act on it).\n\n' +
    '**The tool list**, in one of two forms: `tools`, a list of `ToolInfo` objects (MCP tool objects with `name` are ' +
    'accepted as they are), or `servers`, the `tools/list` results grouped by server (`toolKey` is `serverId:name`). ' +
    'The request is validated strictly, its tools leniently: a tool that cannot be used (no usable name, a required ' +
    `field of the wrong type, a name over ${MAX_NAME_CHARS} characters, \`annotations\` or \`inputSchema\` nested deeper ` +
    `than ${MAX_NESTING_DEPTH} levels, a repeated \`toolKey\`: the first is kept) is left out and named in \`meta.skipped\` ` +
    `(the first ${MAX_SKIPPED_LISTED}; \`meta.skippedCount\` counts all). Empty or \`null\` optional fields count as absent, ` +
    'non-string tags are dropped, `__proto__` keys are removed. A list whose tools are all unusable gets 200 with no results.\n\n' +
    '**Filters and boosts**: `filter` narrows the list before ranking (servers, tool-name rules, tags, MCP annotation ' +
    'hints), `boost.tags` raises tools with matching tags, `minRelevance` leaves out weak matches. Annotations are ' +
    'untrusted hints from third-party servers: filtering on them is a convenience, not a security boundary.\n\n' +
    'A 1,000-tool list is close to 1 MB of JSON: send it compressed with `Content-Encoding: gzip`, `deflate` or ' +
    '`br` (the body limit applies to the decompressed size).\n\n' +
    "**Limits** (this deployment's values; operators can change the configurable ones):\n\n" +
    `| Limit | Value | Error |\n|---|---|---|\n` +
    `| \`query\` items | 1–${MAX_QUERY_ITEMS} | 400 |\n` +
    `| characters (code points) per \`query\` item | ${limits.maxQueryChars} (\`MAX_QUERY_CHARS\`); ranking reads the first ${RANKED_QUERY_CHARS} | 400 |\n` +
    `| characters (code points) of \`context\` | ${limits.maxContextChars} (\`MAX_CONTEXT_CHARS\`) | 400 |\n` +
    `| tools per request (\`tools\`, or all of \`servers\`) | ${limits.maxTools} (\`MAX_TOOLS\`) | 413 |\n` +
    `| \`toolKey\`, \`toolName\`, \`serverName\` | unique key, at most ${MAX_NAME_CHARS} characters each | tool skipped |\n` +
    `| entries per \`filter\` or \`boost\` list | ${MAX_FILTER_ITEMS} | 400 |\n` +
    `| \`maxResults\` | 1–${MAX_RESULTS_LIMIT}, default ${DEFAULT_MAX_RESULTS} | 400 |\n` +
    `| request body | ${mib(limits.bodyLimitBytes)} (\`MAX_BODY_BYTES\`) | 413 |\n` +
    `| time budget | ${limits.deadlineMs} ms (\`SEARCH_DEADLINE_MS\`), lowered by \`X-Search-Deadline-Ms\` | — |\n` +
    `| searches per project per minute | ${limits.rateLimitPerMinute === 0 ? 'unlimited' : limits.rateLimitPerMinute} (\`RATE_LIMIT_PER_MINUTE\`) | 429 |\n` +
    `| searches worked on at once per project | ${unlimited(limits.fairShare.maxInFlight)} (\`MAX_IN_FLIGHT_PER_PROJECT\`) | a search waits for a slot, see below |\n` +
    `| searches waiting at once per project (on the model or embeddings, or for a slot) | ${limits.fairShare.maxWaiting} (\`MAX_WAITING_PER_PROJECT\`) | 429 |\n` +
    `| search work (tools × sub-queries) per project per minute | ${unlimited(limits.fairShare.workPerMinute)} ` +
    `(\`RATE_LIMIT_WORK_PER_MINUTE\`) | 429 |\n` +
    `| request bytes per project per minute | ${limits.fairShare.bytesPerMinute === 0 ? 'unlimited' : mib(limits.fairShare.bytesPerMinute)} ` +
    `(\`RATE_LIMIT_MB_PER_MINUTE\`) | 429 |\n` +
    "\nWork and bytes are budgets that refill steadily (a quiet project may use 10 seconds' worth at once); a search " +
    'is admitted while its project has budget left and is charged what it cost, so one large search may put the ' +
    'project in debt for a while; the CPU time of `filter.tools` rules is charged too, whether they pass or are refused. ' +
    "A search past its project's work slots waits for one until its deadline, then 429; a search waiting on the model " +
    'or an embeddings endpoint gives up its work slot. Every 429 carries `Retry-After`.\n'
  );
}

const unlimited = (limit: number) => (limit === 0 ? 'unlimited' : limit.toLocaleString('en-US'));

/**
 * The search route's error responses that no setting changes (413 names the limits: searchRouteSchema
 * writes it). A table: integer keys, so the statuses list in ascending order wherever they are spread.
 */
const SEARCH_ERROR_RESPONSES = {
  400: problemResponse({
    description:
      'The request is invalid: a body field (named in `errors[].field` as a JSON Pointer; each problem once), ' +
      'malformed JSON, both or neither of `tools` and `servers`, a `filter.tools` rule that is not a valid glob or ' +
      'RE2 expression, or a bad `X-Search-Deadline-Ms` header. Tools that cannot be used are skipped (200), not refused.',
    examples: {
      field: {
        summary: 'A field is invalid',
        code: 'INVALID_REQUEST',
        detail: 'body /query: Expected array length to be greater or equal to 1',
        errors: [{ field: '/query', message: 'Expected array length to be greater or equal to 1' }],
      },
      unsafeRule: {
        summary: 'A filter rule RE2 cannot run',
        code: 'INVALID_REQUEST',
        detail:
          'body /filter/tools/0: is not a valid RE2 regular expression: error parsing regexp: invalid escape sequence: `\\1`',
        errors: [
          {
            field: '/filter/tools/0',
            message: 'is not a valid RE2 regular expression: error parsing regexp: invalid escape sequence: `\\1`',
          },
        ],
      },
    },
  }),
  401: problemResponse({
    description: 'No bearer token, or the token is invalid: bad signature, expired, wrong issuer or audience.',
    headers: unauthorizedHeaders,
    examples: {
      missing: {
        summary: 'No Authorization header',
        code: 'UNAUTHORIZED',
        detail: 'Missing bearer token: send "Authorization: Bearer <JWT>".',
      },
      expired: { summary: 'The token has expired', code: 'UNAUTHORIZED', detail: 'The token has expired.' },
    },
  }),
  403: problemResponse({
    description:
      'The token is valid but names no project (no string project claim), or `X-Project-Id` does not match it.',
    examples: {
      projectMismatch: {
        summary: 'X-Project-Id differs from the token',
        code: 'FORBIDDEN',
        detail: 'The X-Project-Id header does not match the token\'s "projectId" claim.',
      },
    },
  }),
  409: problemResponse({
    description:
      'The `toolSet` this request refers to is not held for this project (never sent, expired, evicted, or the ' +
      'service restarted): send the same request with the list as `tools`.',
    examples: {
      toolSetUnknown: {
        summary: 'Tool set unknown',
        code: 'TOOL_SET_UNKNOWN',
        detail: `body /toolSet: this service does not have tool set "${EXAMPLE_TOOL_SET}" (any more); send the list as tools.`,
        errors: [{ field: '/toolSet', message: 'unknown tool set: send the tools again' }],
      },
    },
  }),
  415: unsupportedMediaTypeResponse,
  429: problemResponse({
    description: 'This project has used up its searches for the current minute; retry after `Retry-After` seconds.',
    headers: tooManyRequestsHeaders,
    examples: {
      rateLimited: {
        summary: 'Rate limited',
        code: 'RATE_LIMITED',
        detail: 'This project may make 600 searches per minute; retry in 17 s.',
      },
    },
  }),
  500: problemResponse({
    description: 'An unexpected failure. The body never carries internals; the `requestId` finds the logged error.',
    examples: {
      internal: {
        summary: 'Internal error',
        code: 'INTERNAL',
        detail: 'The service failed to handle the request; it has been logged.',
      },
    },
  }),
  503: problemResponse({
    description:
      'The token could not be verified because the signing keys (AUTH_JWKS_URL) could not be fetched. ' +
      'Retry after `Retry-After` seconds.',
    headers: retryAfterHeader,
    examples: {
      authUnavailable: {
        summary: 'Key set unreachable',
        code: 'AUTH_UNAVAILABLE',
        detail: 'The signing keys (JWKS) could not be fetched; retry later.',
      },
    },
  }),
};

/**
 * Everything the search route declares besides its body: documentation, the request headers and a
 * schema for every response status (the response schemas also keep internal fields from leaking).
 */
export function searchRouteSchema(operationId: (typeof SEARCH_PATHS)[number]['operationId'], config: Readonly<Config>) {
  const limits = searchLimits(config);
  return {
    operationId,
    tags: ['Search'],
    summary:
      operationId === 'searchCatalog'
        ? 'Search the tool catalog'
        : 'Search the tool catalog (unversioned path, same as /v1)',
    description: describeSearch(limits, operationId),
    security: [{ bearerAuth: [] }],
    headers: SearchHeadersSchema,
    response: {
      200: {
        description: 'The best tools for the task, best first (at most `maxResults`).',
        headers: { ...COMMON_RESPONSE_HEADERS, ...RATE_LIMIT_HEADERS },
        content: {
          'application/json': {
            schema: SearchResponseSchema,
            examples: {
              reranked: { summary: 'Reranked by the LLM', value: EXAMPLE_SEARCH_RESPONSE },
              degraded: {
                summary: 'Lexical ranking: the LLM missed the deadline',
                value: EXAMPLE_DEGRADED_SEARCH_RESPONSE,
              },
              skipped: {
                summary: 'Two tools could not be used and were skipped',
                value: EXAMPLE_SKIPPED_SEARCH_RESPONSE,
              },
            },
          },
        },
      },
      ...SEARCH_ERROR_RESPONSES,
      413: problemResponse({
        description: `The body is larger than ${mib(limits.bodyLimitBytes)} (\`MAX_BODY_BYTES\`, decompressed), or it lists more than ${limits.maxTools} tools (\`MAX_TOOLS\`).`,
        examples: {
          tooManyTools: {
            summary: 'Too many tools',
            code: 'TOO_MANY_TOOLS',
            detail: `body /tools: ${limits.maxTools + 1} tools sent; at most ${limits.maxTools} are accepted per request (MAX_TOOLS).`,
            errors: [{ field: '/tools', message: `must carry at most ${limits.maxTools} tools` }],
          },
          bodyTooLarge: {
            summary: 'Body too large',
            code: 'PAYLOAD_TOO_LARGE',
            detail: bodyTooLargeDetail(limits.bodyLimitBytes),
          },
        },
      }),
    },
  };
}

const SEARCH_REQUEST_EXAMPLES = {
  twoStepTask: {
    summary: 'A two-step task over GitHub, Slack, filesystem and calendar tools',
    value: EXAMPLE_SEARCH_REQUEST,
  },
  groupedByServer: {
    summary: 'The same kind of task, tools as tools/list returned them, grouped by server',
    value: EXAMPLE_GROUPED_SEARCH_REQUEST,
  },
  filtersAndBoosts: {
    summary: 'Read-only tools of two servers, tagged tools raised, weak matches left out',
    value: EXAMPLE_FILTERED_SEARCH_REQUEST,
  },
  byReference: {
    summary: 'The same task by reference to the list sent before (meta.toolSet of that answer)',
    value: EXAMPLE_SEARCH_BY_REFERENCE,
  },
};

/** Request examples by operationId (the body schema itself is the shared SearchRequest component). */
export const REQUEST_BODY_EXAMPLES: Record<string, typeof SEARCH_REQUEST_EXAMPLES> = Object.fromEntries(
  SEARCH_PATHS.map(({ operationId }) => [operationId, SEARCH_REQUEST_EXAMPLES]),
);
