import type { SearchRequest, SearchResponse } from '@catalog-search/core';
import { encodeBody, type Compression } from './compression.js';
import { raceSignal, startDeadline, type Deadline } from './deadline.js';
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
import { responseProblem } from './validation.js';

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface CloudCall {
  fetch: FetchLike;
  url: string;
  resolveToken: () => string | Promise<string>;
  timeoutMs: number;
  /** Subtracted from the remaining budget in `X-Search-Deadline-Ms`, for the answer's trip back. */
  deadlineMarginMs: number;
  requestId: string;
  projectId: string | undefined;
  userAgent: string | undefined;
  signal: AbortSignal | undefined;
  compression: Compression;
}

/**
 * One POST to the service within the budget: token, request and body read all count against
 * `timeoutMs`. Resolves with a response checked against the wire schema; rejects with a
 * CatalogSearchError subclass (never anything else).
 */
export async function callCloud(request: SearchRequest, call: CloudCall): Promise<SearchResponse> {
  const deadline = startDeadline(call.timeoutMs, call.signal);
  try {
    const token = await resolveToken(call, deadline);
    const { body, encoding } = await raceSignal(encodeBody(JSON.stringify(request), call.compression), deadline.signal).catch(
      (error: unknown) => {
        throw connectionError(error, deadline);
      },
    );
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

    let response: Response;
    let text: string;
    try {
      // Raced as well as signalled: an injected fetch that ignores `signal` still cannot outlast the budget.
      const init: RequestInit = { method: 'POST', headers, body, signal: deadline.signal };
      response = await raceSignal(call.fetch(call.url, init), deadline.signal);
      text = await raceSignal(response.text(), deadline.signal);
    } catch (error) {
      throw connectionError(error, deadline);
    }
    const requestId = response.headers.get('x-request-id') ?? call.requestId;
    if (!response.ok) throw APIError.generate(response.status, parseProblem(text), response.headers, requestId);

    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new InvalidResponseError('response body is not JSON', response.status, requestId, { cause: error });
    }
    const problem = responseProblem(parsed, request);
    if (problem !== undefined) throw new InvalidResponseError(problem, response.status, requestId);
    return parsed as SearchResponse;
  } finally {
    deadline.dispose();
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
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  const detail = typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message : '';
  const message = error instanceof Error ? error.message : String(error);
  return detail ? `Connection error: ${message} (${detail})` : `Connection error: ${message}`;
}

function parseProblem(text: string): ProblemDetails | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as ProblemDetails) : undefined;
  } catch {
    return undefined;
  }
}
