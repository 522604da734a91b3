import {
  raceSignal,
  type PreparedSearch,
  type ReferenceSearchRequest,
  type SearchRequest,
  type SearchResponse,
} from '@catalog-search/core';
import { canGzip, COMPRESSION_THRESHOLD, encodeBody, type Compression } from './compression.js';
import type { Deadline } from './deadline.js';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  CatalogSearchError,
  CredentialsError,
  InvalidResponseError,
  type ProblemDetails,
} from './errors.js';
import { MAX_PROBLEM_BYTES, MAX_RESPONSE_BYTES, readBody } from './response-body.js';
import { requestJson } from './request-json.js';
import { jsonAtLeast, streamedBody } from './streamed-body.js';
import type { TraceHeaders } from './trace-context.js';
import { responseProblem } from './validation.js';

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

interface CloudCall {
  fetch: FetchLike;
  url: string;
  resolveToken: () => string | Promise<string>;
  /** The search's budget (and the caller's signal): one for every call of a search, a resend included. */
  deadline: Deadline;
  /** Subtracted from the remaining budget in `X-Search-Deadline-Ms`, for the answer's trip back. */
  deadlineMarginMs: number;
  requestId: string;
  /** The request as core prepared it: the answer may name only its tools. */
  prepared: PreparedSearch;
  projectId: string | undefined;
  userAgent: string | undefined;
  /** W3C trace-context headers to send, already checked. */
  trace: TraceHeaders | undefined;
  compression: Compression;
  /** Whether to try streamed bodies; the client's own flag, turned off when its fetch refuses one. */
  streaming: { enabled: boolean };
  /** Send this tool-set id instead of the request's tool list (the service said it holds that list). */
  toolSet?: string | undefined;
}

/**
 * One POST to the service within the search's deadline: token, request and body read all count
 * against it. Resolves with a response checked against the wire schema; rejects with a
 * CatalogSearchError subclass (never anything else).
 */
export async function callCloud(request: SearchRequest, call: CloudCall): Promise<SearchResponse> {
  const { deadline } = call;
  const token = await resolveToken(call, deadline);
  let response: Response;
  let text: string | undefined;
  try {
    // Raced as well as signalled: an injected fetch that ignores `signal` still cannot outlast the budget.
    response = await raceSignal(post(request, call, token, deadline), deadline.signal);
    text = await raceSignal(readBody(response, response.ok ? MAX_RESPONSE_BYTES : MAX_PROBLEM_BYTES), deadline.signal);
  } catch (error) {
    throw connectionError(error, deadline);
  }
  const requestId = response.headers.get('x-request-id') ?? call.requestId;
  if (!response.ok)
    throw APIError.generate(
      response.status,
      text === undefined ? undefined : parseProblem(text),
      response.headers,
      requestId,
    );
  if (text === undefined)
    throw new InvalidResponseError(
      `response body is larger than ${MAX_RESPONSE_BYTES} bytes`,
      response.status,
      requestId,
    );

  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new InvalidResponseError('response body is not JSON', response.status, requestId, { cause: error });
  }
  const problem = responseProblem(parsed, call.prepared);
  if (problem !== undefined) throw new InvalidResponseError(problem, response.status, requestId);
  return parsed as SearchResponse;
}

/**
 * The POST itself. A large body is streamed where the fetch allows it, so that nothing is
 * serialised or compressed before the connection is up; otherwise the body is built first.
 */
async function post(request: SearchRequest, call: CloudCall, token: string, deadline: Deadline): Promise<Response> {
  let json: string | undefined;
  if (call.toolSet !== undefined) {
    // A reference: about 150 bytes with the queries, sent as it is.
    const {
      tools: _tools,
      servers: _servers,
      ...rest
    } = request as SearchRequest & { tools?: unknown; servers?: unknown };
    json = serialise({ ...rest, toolSet: call.toolSet });
  } else if (call.streaming.enabled && jsonAtLeast(request, COMPRESSION_THRESHOLD)) {
    const encoding = canGzip(call.compression) ? 'gzip' : undefined;
    const init: RequestInit & { duplex: 'half' } = {
      method: 'POST',
      headers: headers(call, token, deadline, encoding),
      body: streamedBody(request, encoding === 'gzip'),
      signal: deadline.signal,
      duplex: 'half',
      // A stream cannot be replayed to follow a redirect anyway; and in Node, 'follow' makes fetch
      // clone the request, which reads (serialises) the body before connecting.
      redirect: 'error',
    };
    try {
      return await call.fetch(call.url, init);
    } catch (error) {
      if (deadline.signal.aborted || networkErrorCode(error) !== undefined) throw error;
      // Failed without a network cause: the request cannot be serialised (serialise throws, and
      // streaming stays on for the next requests), or this fetch cannot stream bodies (Chromium over
      // HTTP/1.1, an older or injected fetch), or the cloud redirected. Buffered bodies from now on.
      json = serialise(request);
      call.streaming.enabled = false;
    }
  }
  const { body, encoding } = await encodeBody(json ?? serialise(request), call.compression);
  return call.fetch(call.url, {
    method: 'POST',
    headers: headers(call, token, deadline, encoding),
    body,
    signal: deadline.signal,
  });
}

function headers(
  call: CloudCall,
  token: string,
  deadline: Deadline,
  encoding: string | undefined,
): Record<string, string> {
  const headers: Record<string, string> = {
    accept: 'application/json, application/problem+json',
    'content-type': 'application/json',
    authorization: `Bearer ${token}`,
    'x-request-id': call.requestId,
    'x-search-deadline-ms': String(Math.max(1, Math.floor(deadline.remainingMs() - call.deadlineMarginMs))),
  };
  if (encoding !== undefined) headers['content-encoding'] = encoding;
  if (call.projectId !== undefined) headers['x-project-id'] = call.projectId;
  if (call.userAgent !== undefined) headers['user-agent'] = call.userAgent;
  if (call.trace !== undefined) Object.assign(headers, call.trace);
  return headers;
}

function serialise(request: SearchRequest | ReferenceSearchRequest): string {
  try {
    return requestJson(request);
  } catch (error) {
    throw new CatalogSearchError('the request cannot be serialised as JSON', { cause: error });
  }
}

async function resolveToken(call: CloudCall, deadline: Deadline): Promise<string> {
  let token: unknown;
  try {
    // getToken() takes no signal, so race it: a hanging token provider must not outlast the budget.
    token = await raceSignal(Promise.resolve().then(call.resolveToken), deadline.signal);
  } catch (error) {
    if (deadline.signal.aborted) throw connectionError(error, deadline);
    throw new CredentialsError('getToken() failed', { cause: error });
  }
  if (typeof token !== 'string' || token === '') throw new CredentialsError('getToken() returned no token');
  return token;
}

/** Maps a rejected fetch / body read to the typed error: caller abort, timeout or connection failure. */
function connectionError(error: unknown, deadline: Deadline): CatalogSearchError {
  if (error instanceof CatalogSearchError) return error;
  if (deadline.callerAborted) return new APIUserAbortError({ cause: error });
  if (deadline.timedOut) return new APIConnectionTimeoutError(deadline.timeoutMs);
  return new APIConnectionError(connectionMessage(error), { cause: error });
}

/** Node's fetch says only "fetch failed"; the useful part (ECONNREFUSED…) is in `cause`. */
function connectionMessage(error: unknown): string {
  const cause = (error as { cause?: { message?: unknown } } | undefined)?.cause;
  const detail = networkErrorCode(error) ?? (typeof cause?.message === 'string' ? cause.message : '');
  const message = error instanceof Error ? error.message : String(error);
  return detail ? `Connection error: ${message} (${detail})` : `Connection error: ${message}`;
}

/** The system or undici error code (ECONNREFUSED, ENOTFOUND, UND_ERR_SOCKET…) behind a failed fetch, if any. */
function networkErrorCode(error: unknown): string | undefined {
  const code = (error as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  return typeof code === 'string' ? code : undefined;
}

function parseProblem(text: string): ProblemDetails | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as ProblemDetails) : undefined;
  } catch {
    return undefined;
  }
}
