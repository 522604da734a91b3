// Every error leaves the service as RFC 9457 `application/problem+json` with a stable `code` and
// the `requestId`. One handler maps everything (our ProblemErrors, Fastify's own errors, plugin
// errors) to that shape; a 5xx never carries internals.
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { MAX_LISTED_PROBLEMS } from '@catalog-search/core';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export const ERROR_CODES = {
  INVALID_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  TOOL_SET_UNKNOWN: 409,
  PAYLOAD_TOO_LARGE: 413,
  TOO_MANY_TOOLS: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  HEADERS_TOO_LARGE: 431,
  INTERNAL: 500,
  AUTH_UNAVAILABLE: 503,
  SHUTTING_DOWN: 503,
  STORE_UNAVAILABLE: 503,
  STARTING: 503,
} as const;
export type ErrorCode = keyof typeof ERROR_CODES;

const TITLES: Record<ErrorCode, string> = {
  INVALID_REQUEST: 'Invalid request',
  UNAUTHORIZED: 'Unauthorized',
  FORBIDDEN: 'Forbidden',
  NOT_FOUND: 'Not found',
  METHOD_NOT_ALLOWED: 'Method not allowed',
  REQUEST_TIMEOUT: 'Request timeout',
  TOOL_SET_UNKNOWN: 'Tool set unknown',
  PAYLOAD_TOO_LARGE: 'Payload too large',
  TOO_MANY_TOOLS: 'Too many tools',
  UNSUPPORTED_MEDIA_TYPE: 'Unsupported media type',
  RATE_LIMITED: 'Too many requests',
  HEADERS_TOO_LARGE: 'Request header fields too large',
  INTERNAL: 'Internal server error',
  AUTH_UNAVAILABLE: 'Token verification unavailable',
  SHUTTING_DOWN: 'Shutting down',
  STORE_UNAVAILABLE: 'Shared store unavailable',
  STARTING: 'Starting',
};

/** Problem types are relative URIs (RFC 9457 §3.1.1) documented in the README's error table. */
const problemType = (code: ErrorCode) => `/problems/${code.toLowerCase().replaceAll('_', '-')}`;

export const FieldErrorSchema = Type.Object(
  {
    field: Type.String({ description: 'JSON Pointer into the request body, or the header name.' }),
    message: Type.String(),
  },
  { additionalProperties: false },
);
export type FieldError = Static<typeof FieldErrorSchema>;

export const ProblemSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String(),
    requestId: Type.String(),
    errors: Type.Optional(Type.Array(FieldErrorSchema)),
  },
  { $id: 'Problem', additionalProperties: false },
);
export type Problem = Static<typeof ProblemSchema>;

/** An error with a known code and a message that is safe to show the client. */
export class ProblemError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly extra: { errors?: FieldError[]; headers?: Record<string, string> } = {},
  ) {
    super(detail);
    this.name = 'ProblemError';
    this.status = ERROR_CODES[code];
  }
}

/** Fastify's validation errors carry `validation` (one entry per failure) and `validationContext`. */
interface ValidationEntry {
  instancePath?: string;
  message?: string;
}

/** A 413's detail: the limit in bytes, so a caller knows how far to cut (the limit is per route). */
export function bodyTooLargeDetail(limitBytes: number | undefined): string {
  return limitBytes === undefined
    ? 'The request body is larger than the service accepts.'
    : `The request body is larger than the service accepts: at most ${limitBytes} bytes (after decompression).`;
}

/** `bodyLimitBytes`: the route's body limit, named in a 413's detail. */
export function toProblemError(error: FastifyError | ProblemError | Error, bodyLimitBytes?: number): ProblemError {
  if (error instanceof ProblemError) return error;
  const fastifyError = error as FastifyError & { validation?: ValidationEntry[]; validationContext?: string };

  if (Array.isArray(fastifyError.validation)) {
    const part = fastifyError.validationContext ?? 'body';
    // Each problem once (a schema checker may report one failure along several paths of the schema),
    // and at most as many as any refusal lists.
    const unique = new Map<string, FieldError>();
    for (const entry of fastifyError.validation) {
      const field = entry.instancePath === undefined || entry.instancePath === '' ? '/' : entry.instancePath;
      const message = entry.message ?? 'is invalid';
      unique.set(`${field}\u0000${message}`, { field, message });
      if (unique.size === MAX_LISTED_PROBLEMS) break;
    }
    const errors = [...unique.values()];
    const first = errors[0];
    const detail = first ? `${part} ${first.field}: ${first.message}` : `invalid ${part}`;
    return new ProblemError('INVALID_REQUEST', detail, { errors });
  }

  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ProblemError('PAYLOAD_TOO_LARGE', bodyTooLargeDetail(bodyLimitBytes));
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ProblemError('UNSUPPORTED_MEDIA_TYPE', 'Send the request body as application/json.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ProblemError('INVALID_REQUEST', 'The Content-Length header does not match the body.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ProblemError('INVALID_REQUEST', 'The request body is empty; send a JSON object.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ProblemError('INVALID_REQUEST', 'The request body is not valid JSON.');
    case 'FST_CP_ERR_INVALID_CONTENT_ENCODING':
      return new ProblemError(
        'UNSUPPORTED_MEDIA_TYPE',
        'Unsupported Content-Encoding: send the body as is, or gzip, deflate or br.',
      );
    case 'FST_CP_ERR_INVALID_CONTENT':
      return new ProblemError(
        'INVALID_REQUEST',
        'The request body could not be decompressed with its Content-Encoding.',
      );
  }
  const status = fastifyError.statusCode ?? 500;
  if (status === 413) return new ProblemError('PAYLOAD_TOO_LARGE', bodyTooLargeDetail(bodyLimitBytes));
  if (status === 415) return new ProblemError('UNSUPPORTED_MEDIA_TYPE', 'Send the request body as application/json.');
  if (status === 404) return new ProblemError('NOT_FOUND', 'No such resource.');
  if (status === 405) return new ProblemError('METHOD_NOT_ALLOWED', 'This method is not allowed here.');
  // Other client errors raised by Fastify itself (e.g. JSON with "__proto__") have safe messages.
  if (status >= 400 && status < 500) return new ProblemError('INVALID_REQUEST', fastifyError.message);
  return new ProblemError('INTERNAL', 'The service failed to handle the request; it has been logged.');
}

export function problemBody(error: ProblemError, requestId: string): Problem {
  const body: Problem = {
    type: problemType(error.code),
    title: TITLES[error.code],
    status: error.status,
    detail: error.detail,
    code: error.code,
    requestId,
  };
  if (error.extra.errors !== undefined) body.errors = error.extra.errors;
  return body;
}

export function sendProblem(reply: FastifyReply, error: ProblemError): FastifyReply {
  if (error.extra.headers) reply.headers(error.extra.headers);
  return reply
    .code(error.status)
    .type('application/problem+json; charset=utf-8')
    .send(problemBody(error, reply.request.id));
}

/** The single error handler and the 404 handler. */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const problem = toProblemError(error, request.routeOptions.bodyLimit);
    if (problem.status >= 500) request.log.error({ err: error }, 'request failed');
    else request.log.info({ code: problem.code, detail: problem.detail }, 'request rejected');
    return sendProblem(reply, problem);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!.slice(0, 200);
    // A known path with another method is a 405 that says which methods it takes.
    const allowed = ['GET', 'POST', 'DELETE'].filter((method) => app.hasRoute({ method, url: path }));
    if (allowed.length > 0) {
      return sendProblem(
        reply,
        new ProblemError('METHOD_NOT_ALLOWED', `${path} takes ${allowed.join(', ')}, not ${request.method}.`, {
          headers: { allow: allowed.join(', ') },
        }),
      );
    }
    return sendProblem(reply, new ProblemError('NOT_FOUND', `No route for ${request.method} ${path}.`));
  });
}

/**
 * Errors Node's HTTP parser raises before there is a request (Fastify's `clientErrorHandler`): headers
 * over the size limit, a request not received within HEADERS_TIMEOUT_MS / REQUEST_TIMEOUT_MS, bytes
 * that are not HTTP. Answered as problem+json on the raw socket (Fastify's default is a bare JSON
 * body), then the connection is closed.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  let problem: ProblemError;
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    problem = new ProblemError(
      'HEADERS_TOO_LARGE',
      'The request headers are larger than the service accepts (16 KB in all).',
    );
  } else if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    problem = new ProblemError(
      'REQUEST_TIMEOUT',
      'The request was not received in time; send headers and body without pauses.',
    );
  } else {
    problem = new ProblemError('INVALID_REQUEST', 'The request is not valid HTTP/1.1.');
  }
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify(problemBody(problem, randomUUID()));
  socket.end(
    `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}\r\n` +
      'Content-Type: application/problem+json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}
