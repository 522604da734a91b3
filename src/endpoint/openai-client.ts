// One OpenAI-compatible endpoint (OpenAI, Azure, vLLM, TEI, Ollama, LiteLLM) through the official SDK,
// under the rules both model stages keep: the caller's signal and deadline end a call, the SDK never
// retries (a retry would outlive the deadline), and every response body is read within byte limits.
import OpenAI, { APIConnectionTimeoutError, APIError, APIUserAbortError, RateLimitError } from 'openai';
import { boundedFetch, isTooLarge, type BodyLimits } from './bounded-fetch.js';

interface EndpointOptions {
  /** e.g. `http://localhost:11434/v1`; the SDK's default when absent. */
  baseURL?: string;
  /** Sent as the bearer token; local endpoints usually need none. */
  apiKey?: string;
  /** Limits on every response body. */
  limits: BodyLimits;
  /** For tests and proxies: the fetch the SDK uses. */
  fetch?: typeof fetch;
}

export function createEndpointClient(options: EndpointOptions): OpenAI {
  return new OpenAI({
    apiKey: options.apiKey || 'unused',
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
    maxRetries: 0,
    fetch: boundedFetch(options.fetch ?? fetch, options.limits),
  });
}

/** Why a call to the endpoint failed, in the words the stages report (`meta.degraded`). */
type EndpointFailure = 'timeout' | 'rate_limited' | 'too_large' | 'upstream_error';

/** `aborted`: the caller's signal had fired (its deadline or its client went away). */
export function classifyEndpointError(error: unknown, aborted: boolean): EndpointFailure {
  if (aborted || error instanceof APIUserAbortError || error instanceof APIConnectionTimeoutError) return 'timeout';
  if (isTooLarge(error)) return 'too_large';
  if (error instanceof RateLimitError) return 'rate_limited';
  // APIError, APIConnectionError, and errors thrown while reading a body (a reset socket, an SSE line
  // that is not JSON) alike.
  return 'upstream_error';
}

/** An HTTP 400/422 refusal, with the text that says what the endpoint refused. */
export function refusalText(error: unknown): string | undefined {
  if (!(error instanceof APIError) || (error.status !== 400 && error.status !== 422)) return undefined;
  return `${error.message} ${JSON.stringify(error.error ?? '')}`;
}
