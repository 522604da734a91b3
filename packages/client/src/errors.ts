// The client's error hierarchy (after openai-node's): one base class, an API error per HTTP status
// family, and separate classes for the failures that never got an HTTP answer. With
// `fallback: true` (the default) these reach the router through `onFallback`; with
// `fallback: false` `search()` rejects with them.
//
//   CatalogSearchError
//   ├── APIError (status, headers, problem, requestId)
//   │   ├── BadRequestError (400)            ├── UnprocessableEntityError (422)
//   │   ├── AuthenticationError (401)        ├── RateLimitError (429, retryAfterMs)
//   │   ├── PermissionDeniedError (403)      └── InternalServerError (5xx, retryAfterMs)
//   │   ├── NotFoundError (404)
//   │   └── PayloadTooLargeError (413)
//   ├── APIConnectionError (refused, reset, DNS…)
//   │   └── APIConnectionTimeoutError (timeoutMs elapsed)
//   ├── APIUserAbortError (the caller's signal fired; never a fallback)
//   ├── InvalidResponseError (unreadable or schema-invalid 2xx body)
//   ├── InvalidRequestError (the request failed local validation; never sent, never a fallback)
//   ├── CredentialsError (getToken() threw or returned nothing)
//   └── CircuitOpenError (the breaker is open; the cloud was not called)

/** RFC 9457 problem details as the service sends them (all fields optional: proxies send other bodies). */
export interface ProblemDetails {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  code?: string;
  requestId?: string;
  [key: string]: unknown;
}

export class CatalogSearchError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    // `new.target.name` keeps subclass names without repeating them in every constructor.
    this.name = new.target.name;
  }
}

/** Whatever a search's machinery threw, as the typed error a router sees. */
export const asCatalogError = (error: unknown): CatalogSearchError =>
  error instanceof CatalogSearchError ? error : new CatalogSearchError('unexpected client failure', { cause: error });

export class APIError extends CatalogSearchError {
  /** HTTP status of the answer. */
  readonly status: number;
  readonly headers: Headers;
  /** The problem+json body when the service (or a proxy) sent a JSON object; otherwise undefined. */
  readonly problem: ProblemDetails | undefined;
  /** `X-Request-Id` of the answer, else the id the client sent. Quote it when reporting a problem. */
  readonly requestId: string | undefined;

  constructor(status: number, problem: ProblemDetails | undefined, headers: Headers, requestId: string | undefined) {
    super(describeStatus(status, problem));
    this.status = status;
    this.headers = headers;
    this.problem = problem;
    this.requestId = requestId;
  }

  /** The subclass for a status, so callers can `instanceof` instead of comparing numbers. */
  static generate(
    status: number,
    problem: ProblemDetails | undefined,
    headers: Headers,
    requestId: string | undefined,
  ): APIError {
    const ErrorClass = errorClassFor(status);
    return new ErrorClass(status, problem, headers, requestId);
  }
}

export class BadRequestError extends APIError {}
export class AuthenticationError extends APIError {}
export class PermissionDeniedError extends APIError {}
export class NotFoundError extends APIError {}
export class PayloadTooLargeError extends APIError {}
export class UnprocessableEntityError extends APIError {}

/** Errors the server asked us to wait after: the breaker stays open for at least `retryAfterMs`. */
export class RateLimitError extends APIError {
  /** Parsed `Retry-After`, when present and valid. */
  readonly retryAfterMs: number | undefined;
  constructor(status: number, problem: ProblemDetails | undefined, headers: Headers, requestId: string | undefined) {
    super(status, problem, headers, requestId);
    this.retryAfterMs = parseRetryAfter(headers.get('retry-after'));
  }
}

export class InternalServerError extends APIError {
  /** Parsed `Retry-After` (sent with 503), when present and valid. */
  readonly retryAfterMs: number | undefined;
  constructor(status: number, problem: ProblemDetails | undefined, headers: Headers, requestId: string | undefined) {
    super(status, problem, headers, requestId);
    this.retryAfterMs = parseRetryAfter(headers.get('retry-after'));
  }
}

export class APIConnectionError extends CatalogSearchError {
  constructor(message = 'Connection error.', options?: { cause?: unknown }) {
    super(message, options);
  }
}

export class APIConnectionTimeoutError extends APIConnectionError {
  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    super(`Request timed out after ${timeoutMs} ms.`);
    this.timeoutMs = timeoutMs;
  }
}

export class APIUserAbortError extends CatalogSearchError {
  constructor(options?: { cause?: unknown }) {
    super('Request was aborted.', options);
  }
}

export class InvalidResponseError extends CatalogSearchError {
  /** HTTP status of the answer whose body was unusable. */
  readonly status: number;
  readonly requestId: string | undefined;
  constructor(message: string, status: number, requestId: string | undefined, options?: { cause?: unknown }) {
    super(message, options);
    this.status = status;
    this.requestId = requestId;
  }
}

export class InvalidRequestError extends CatalogSearchError {
  /** JSON pointer of the first offending field, e.g. `/tools/3/toolName`. */
  readonly path: string;
  constructor(path: string, reason: string) {
    super(`Invalid search request: ${path || '(root)'} ${reason}`);
    this.path = path;
  }
}

export class CredentialsError extends CatalogSearchError {}

export class CircuitOpenError extends CatalogSearchError {
  /** Clock time (the breaker's `now()`) after which the next search probes the cloud again. */
  readonly retryAt: number;
  constructor(retryAt: number, lastFailure: CatalogSearchError | undefined) {
    super('Circuit open: the cloud is skipped after repeated failures.', { cause: lastFailure });
    this.retryAt = retryAt;
  }
}

type APIErrorClass = new (
  status: number,
  problem: ProblemDetails | undefined,
  headers: Headers,
  requestId: string | undefined,
) => APIError;

function errorClassFor(status: number): APIErrorClass {
  switch (status) {
    case 400:
      return BadRequestError;
    case 401:
      return AuthenticationError;
    case 403:
      return PermissionDeniedError;
    case 404:
      return NotFoundError;
    case 413:
      return PayloadTooLargeError;
    case 422:
      return UnprocessableEntityError;
    case 429:
      return RateLimitError;
    default:
      return status >= 500 ? InternalServerError : APIError;
  }
}

function describeStatus(status: number, problem: ProblemDetails | undefined): string {
  const text = [problem?.title, problem?.detail].filter((part) => typeof part === 'string' && part).join(': ');
  return text ? `${status} ${text}` : `${status} status code (no problem details)`;
}

/** `Retry-After` as delay-seconds or an HTTP date, in ms; undefined when absent or unparsable. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // An HTTP date always has letters (weekday, month); this keeps Date.parse from reading "-5" as a year.
  if (!/[a-z]/i.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
