import {
  FeedbackResponseSchema,
  MAX_FEEDBACK_EVENTS,
  type FeedbackRequest,
  type FeedbackResponse,
} from '@catalog-search/core';
import type { Config } from '../config/index.js';
import { bodyTooLargeDetail } from '../http/errors.js';
import {
  COMMON_RESPONSE_HEADERS,
  EXAMPLE_REQUEST_ID,
  problemResponse,
  RATE_LIMIT_HEADERS,
  retryAfterHeader,
  tooManyRequestsHeaders,
  unauthorizedHeaders,
  unsupportedMediaTypeResponse,
} from './responses.js';

/** The versioned paths, and the unversioned prefix's (as /catalog/search beside /v1/catalog/search): one operation each. */
export const FEEDBACK_PATHS = [
  { url: '/v1/catalog/feedback', report: 'reportFeedback', forget: 'forgetFeedback' },
  { url: '/catalog/feedback', report: 'reportFeedbackUnversioned', forget: 'forgetFeedbackUnversioned' },
] as const;

export const EXAMPLE_FEEDBACK_REQUEST: FeedbackRequest = {
  events: [
    { requestId: EXAMPLE_REQUEST_ID, toolKey: 'github:create_issue', outcome: 'succeeded' },
    { query: ['file a bug about the failing login test'], toolKey: 'github:create_issue', outcome: 'selected' },
    { requestId: 'a-search-from-yesterday', toolKey: 'slack:post_message', outcome: 'failed' },
  ],
};

export const EXAMPLE_FEEDBACK_RESPONSE: FeedbackResponse = {
  accepted: 2,
  ignored: [{ index: 2, reason: 'requestId: no recent search of this project has this id; send query' }],
};

const unversionedNote = (unversioned: boolean, path: string) =>
  unversioned
    ? `**The unversioned path of \`${path}\`**: same request, response and errors; new integrations should call the /v1 path.\n\n`
    : '';

const common401 = problemResponse({
  description: 'No bearer token, or the token is invalid.',
  headers: unauthorizedHeaders,
  examples: {
    missing: {
      summary: 'No Authorization header',
      code: 'UNAUTHORIZED',
      detail: 'Missing bearer token: send "Authorization: Bearer <JWT>".',
    },
  },
});
const common403 = problemResponse({
  description: 'The token names no project, or `X-Project-Id` does not match it.',
  examples: {
    projectMismatch: {
      summary: 'X-Project-Id differs from the token',
      code: 'FORBIDDEN',
      detail: 'The X-Project-Id header does not match the token\'s "projectId" claim.',
    },
  },
});
const common429 = problemResponse({
  description: 'This project has used up its feedback requests (or bytes) for now; retry after `Retry-After` seconds.',
  headers: tooManyRequestsHeaders,
  examples: {
    rateLimited: {
      summary: 'Rate limited',
      code: 'RATE_LIMITED',
      detail: 'This project may send 600 feedback requests per minute; retry in 17 s.',
    },
  },
});
const common503 = problemResponse({
  description:
    'Redis (REDIS_URL) could not be reached, so what the project taught could not be forgotten on every replica; retry ' +
    'after `Retry-After` seconds.',
  headers: retryAfterHeader,
  examples: {
    storeUnavailable: {
      summary: 'Redis unreachable',
      code: 'STORE_UNAVAILABLE',
      detail: 'The shared store could not be reached: the other replicas still use what this project taught. Retry.',
    },
  },
});

const report503 = problemResponse({
  description:
    'Redis (REDIS_URL) could not store the reports (down, too slow, or refusing writes): nothing was learned from ' +
    'them, on any replica. Send the same body again after `Retry-After` seconds (the client package does); a report ' +
    'stored twice counts once. A `202` always means stored.',
  headers: retryAfterHeader,
  examples: {
    storeUnavailable: {
      summary: 'Redis unreachable',
      code: 'STORE_UNAVAILABLE',
      detail: 'The shared store could not be reached, so the reports were not stored. Retry after Retry-After seconds.',
    },
  },
});

/** POST /v1/catalog/feedback: documentation and every response. */
export function reportRouteSchema(operationId: (typeof FEEDBACK_PATHS)[number]['report'], config: Readonly<Config>) {
  const unversioned = operationId === 'reportFeedbackUnversioned';
  return {
    operationId,
    tags: ['Feedback'],
    summary: unversioned
      ? 'Report tool use (unversioned path, same as /v1)'
      : 'Report which tool was used and how it went',
    description:
      unversionedNote(unversioned, '/v1/catalog/feedback') +
      "After `tool_discovery`, the router's agent calls one of the results with `tool_execute`: report that here, and " +
      'the project\'s later searches rank the tool higher for similar requests (its explanation then says "raised by past ' +
      'use", and `meta.learning` is `raised`). Learning is per project unless the deployment turns on shared learning ' +
      '(`LEARNING_SHARED`): then what more than `LEARNING_SHARED_MIN_PROJECTS` distinct projects with a history reported ' +
      '(at a keyed threshold a little above it, held an hour) raises the tool for ' +
      "every project's similar requests (`meta.learning` `shared`; words and tools are kept only as keyed hashes). **Opt-out**: " +
      'a token with the claim `"shareLearning": false` keeps that project\'s reports its own (they never count for others).\n\n' +
      'Each event names the tool (`toolKey`), the `outcome` (`succeeded` is the strongest evidence; `selected` counts half, ' +
      'a quarter for the tool the search ranked first, since agents often take the top result; `failed` takes back what a ' +
      "success gave) and the request: the search's `meta.requestId` (the service remembers each search for " +
      `${Math.round(config.feedback.searchTtlMs / 60_000)} minutes, \`FEEDBACK_SEARCH_TTL_MS\`) or the \`query\` itself.\n\n` +
      'A tool counts once per search: repeated reports of one search add nothing, and a later outcome replaces an earlier ' +
      'one. A tool its list marks `destructiveHint: true` needs more searches to be raised and is never raised above a tool ' +
      'not so marked that matches the request as well.\n\n' +
      'The envelope is validated strictly (400 naming the field); events leniently: one that cannot be used is ignored and ' +
      'named in `ignored`, and the others are still learned from.\n\n' +
      '**Limits**\n\n| Limit | Value | Error |\n|---|---|---|\n' +
      `| events per request | 1–${MAX_FEEDBACK_EVENTS} | 400 |\n` +
      `| request body | ${config.feedback.maxBodyBytes} bytes (\`FEEDBACK_MAX_BODY_BYTES\`) | 413 |\n` +
      `| reports kept per project | ${config.feedback.maxEvents}, newest (\`FEEDBACK_MAX_EVENTS\`) | older ones dropped |\n` +
      `| requests per project per minute | ${config.rateLimitPerMinute === 0 ? 'unlimited' : config.rateLimitPerMinute} (\`RATE_LIMIT_PER_MINUTE\`, a budget apart from searches) | 429 |\n`,
    security: [{ bearerAuth: [] }],
    response: reportResponses(config),
  };
}

/** The report route's responses: 202 with what was learned from and ignored, and every error. */
function reportResponses(config: Readonly<Config>) {
  return {
    202: {
      description:
        'The usable events were learned from and stored (with REDIS_URL: in Redis, for every replica); the others are ' +
        'listed with why.',
      headers: { ...COMMON_RESPONSE_HEADERS, ...RATE_LIMIT_HEADERS },
      content: {
        'application/json': {
          schema: FeedbackResponseSchema,
          examples: {
            oneIgnored: { summary: 'Two events learned from, one ignored', value: EXAMPLE_FEEDBACK_RESPONSE },
          },
        },
      },
    },
    400: problemResponse({
      description:
        'The envelope is invalid: not a JSON object, no `events`, more than the limit of events, or another field.',
      examples: {
        tooMany: {
          summary: 'Too many events',
          code: 'INVALID_REQUEST',
          detail: `body /events: Expected array length to be less or equal to ${MAX_FEEDBACK_EVENTS}`,
          errors: [
            { field: '/events', message: `Expected array length to be less or equal to ${MAX_FEEDBACK_EVENTS}` },
          ],
        },
      },
    }),
    401: common401,
    403: common403,
    413: problemResponse({
      description: `The body (decompressed) is larger than \`FEEDBACK_MAX_BODY_BYTES\` (${config.feedback.maxBodyBytes} bytes).`,
      examples: {
        bodyTooLarge: {
          summary: 'Body too large',
          code: 'PAYLOAD_TOO_LARGE',
          detail: bodyTooLargeDetail(config.feedback.maxBodyBytes),
        },
      },
    }),
    415: unsupportedMediaTypeResponse,
    429: common429,
    503: report503,
  };
}

/** DELETE /v1/catalog/feedback. */
export function forgetRouteSchema(operationId: (typeof FEEDBACK_PATHS)[number]['forget']) {
  const unversioned = operationId === 'forgetFeedbackUnversioned';
  return {
    operationId,
    tags: ['Feedback'],
    summary: unversioned
      ? 'Forget what the project taught (unversioned path, same as /v1)'
      : 'Forget everything the project taught',
    description:
      unversionedNote(unversioned, '/v1/catalog/feedback') +
      'Forgets every report of the project, in every replica and in Redis: its next searches rank as if it had never ' +
      'reported (no `meta.learning`). With shared learning it also withdraws the project from every association it counted ' +
      'towards: one that falls below `LEARNING_SHARED_MIN_PROJECTS` projects is no longer used for anyone.',
    security: [{ bearerAuth: [] }],
    response: {
      204: { description: 'Forgotten.', headers: { ...COMMON_RESPONSE_HEADERS, ...RATE_LIMIT_HEADERS }, type: 'null' },
      401: common401,
      403: common403,
      429: common429,
      503: common503,
    },
  };
}

/** Request examples by operationId (the body schema itself is the FeedbackRequest component). */
export const FEEDBACK_REQUEST_EXAMPLES: Record<
  string,
  Record<string, { summary: string; value: unknown }>
> = Object.fromEntries(
  FEEDBACK_PATHS.map(({ report }) => [
    report,
    { afterExecute: { summary: 'Two reports by requestId and one by query', value: EXAMPLE_FEEDBACK_REQUEST } },
  ]),
);
