import {
  APIConnectionTimeoutError,
  APIError,
  AuthenticationError,
  CircuitOpenError,
  CredentialsError,
  InvalidResponseError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  type CatalogSearchError,
} from './errors.js';

/**
 * Why a search was answered locally. Fixed vocabulary (new values only in a minor release):
 * - `timeout`: no complete answer within `timeoutMs`.
 * - `network`: connection refused or reset, DNS failure, TLS error.
 * - `server_error`: a 5xx answer.
 * - `rate_limited`: a 429 answer.
 * - `unauthorized`: a 401 answer, or `getToken()` failed. Fix the token.
 * - `forbidden`: a 403 answer (e.g. `projectId` differs from the token's project). Fix the setup.
 * - `not_found`: a 404 answer. Fix `baseUrl` / `path`.
 * - `bad_request`: any other 4xx (400, 413, 422…): the service refused this request.
 * - `invalid_response`: a 2xx whose body is not JSON or not a SearchResponse for this request (only tools
 *   sent that pass the filter, each once and named as sent, at most `maxResults`, none below `minRelevance`).
 * - `circuit_open`: the breaker is open after repeated failures; the cloud was not called.
 */
export type FallbackReason =
  | 'timeout'
  | 'network'
  | 'server_error'
  | 'rate_limited'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'bad_request'
  | 'invalid_response'
  | 'circuit_open';

/** Reasons that will not go away by themselves: the router's configuration needs fixing. */
export const CONFIGURATION_REASONS: ReadonlySet<FallbackReason> = new Set([
  'unauthorized',
  'forbidden',
  'not_found',
  'bad_request',
]);

export function fallbackReasonFor(error: CatalogSearchError): FallbackReason {
  if (error instanceof CircuitOpenError) return 'circuit_open';
  if (error instanceof APIConnectionTimeoutError) return 'timeout';
  if (error instanceof CredentialsError || error instanceof AuthenticationError) return 'unauthorized';
  if (error instanceof PermissionDeniedError) return 'forbidden';
  if (error instanceof NotFoundError) return 'not_found';
  if (error instanceof RateLimitError) return 'rate_limited';
  if (error instanceof InvalidResponseError) return 'invalid_response';
  if (error instanceof APIError) {
    if (error.status >= 500) return 'server_error';
    if (error.status === 408) return 'timeout';
    return 'bad_request';
  }
  return 'network';
}
