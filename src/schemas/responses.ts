// Response building blocks for route schemas. Fastify serializes each status with the schema under
// its media type; @fastify/swagger turns the same objects into the OpenAPI responses, so what is
// documented is what is sent.
import {
  ProblemError,
  ProblemSchema,
  problemBody,
  type ErrorCode,
  type FieldError,
  type Problem,
} from '../http/errors.js';
import { API_VERSION, API_VERSION_HEADER } from './api-version.js';

const PROBLEM_MEDIA_TYPE = 'application/problem+json';

/** An id like those a router sends; the examples use it so that request and response agree. */
export const EXAMPLE_REQUEST_ID = '7f9c2ba4-e88f-4c2a-9f3e-5d1b8a6c0e21';

/** @public The route schemas' declarations name it through the header objects they return. */
export interface HeaderDoc {
  type: 'string' | 'integer';
  /** Always sent with this response (moved from the schema to the header object in the document). */
  required?: true;
  description: string;
  examples?: unknown[];
  enum?: string[];
  minimum?: number;
}

/** Headers on every response of the service. */
export const COMMON_RESPONSE_HEADERS: Record<string, HeaderDoc> = {
  'X-Request-Id': {
    type: 'string',
    required: true,
    description:
      "The id of this request: the caller's `X-Request-Id` when it was sent and is 1–128 characters of " +
      '`A–Z a–z 0–9 . _ : @ / + = -`, else a generated UUID. Also in problem bodies (`requestId`) and ' +
      'in `meta.requestId`; quote it when reporting a problem.',
    examples: [EXAMPLE_REQUEST_ID],
  },
  [API_VERSION_HEADER]: {
    type: 'string',
    required: true,
    description: 'The major API version that answered (see "Versioning and compatibility" above).',
    enum: [API_VERSION],
  },
};

/** Sent on responses of the search operation while per-project rate limiting is on (RATE_LIMIT_PER_MINUTE > 0). */
export const RATE_LIMIT_HEADERS: Record<string, HeaderDoc> = {
  'X-RateLimit-Limit': {
    type: 'integer',
    description: 'Searches this project may make per window (one minute).',
    minimum: 0,
  },
  'X-RateLimit-Remaining': { type: 'integer', description: 'Searches left in the current window.', minimum: 0 },
  'X-RateLimit-Reset': { type: 'integer', description: 'Seconds until the window resets.', minimum: 0 },
};

const RETRY_AFTER_HEADER: Record<string, HeaderDoc> = {
  'Retry-After': {
    type: 'integer',
    required: true,
    description: 'Seconds to wait before retrying (RFC 9110 §10.2.3).',
    minimum: 0,
    examples: [17],
  },
};

const WWW_AUTHENTICATE_HEADER: Record<string, HeaderDoc> = {
  'WWW-Authenticate': {
    type: 'string',
    required: true,
    description: 'The bearer challenge (RFC 6750 §3), with `error="invalid_token"` when a token was sent but refused.',
    examples: ['Bearer realm="catalog-search", error="invalid_token", error_description="The token has expired."'],
  },
};

interface ProblemExample {
  summary: string;
  code: ErrorCode;
  detail: string;
  errors?: FieldError[];
}

/** A problem body exactly as the error handler builds it (same function), so examples cannot drift. */
function exampleProblem(example: ProblemExample): Problem {
  const extra = example.errors === undefined ? {} : { errors: example.errors };
  return problemBody(new ProblemError(example.code, example.detail, extra), EXAMPLE_REQUEST_ID);
}

interface ProblemResponseOptions {
  description: string;
  examples: Record<string, ProblemExample>;
  headers?: Record<string, HeaderDoc>;
}

/** An RFC 9457 `application/problem+json` response for one status. */
export function problemResponse(options: ProblemResponseOptions) {
  return {
    description: options.description,
    headers: { ...COMMON_RESPONSE_HEADERS, ...options.headers },
    content: {
      [PROBLEM_MEDIA_TYPE]: {
        schema: ProblemSchema,
        examples: Object.fromEntries(
          Object.entries(options.examples).map(([name, example]) => [
            name,
            { summary: example.summary, value: exampleProblem(example) },
          ]),
        ),
      },
    },
  };
}

/** 415, the same for every route that takes a body (search, feedback: http/compressed-bodies.ts). */
export const unsupportedMediaTypeResponse = problemResponse({
  description: 'The body is not `application/json`, or its `Content-Encoding` is not `gzip`, `deflate` or `br`.',
  examples: {
    mediaType: {
      summary: 'Wrong content type',
      code: 'UNSUPPORTED_MEDIA_TYPE',
      detail: 'Send the request body as application/json.',
    },
  },
});

export const tooManyRequestsHeaders = { ...RETRY_AFTER_HEADER, ...RATE_LIMIT_HEADERS };
export const retryAfterHeader = RETRY_AFTER_HEADER;
export const unauthorizedHeaders = WWW_AUTHENTICATE_HEADER;
