import { DEFAULT_MAX_DESCRIPTION_CHARS } from '@catalog-search/core';
import { CircuitBreaker } from './circuit-breaker.js';
import type { CatalogSearchClientOptions } from './client-contract.js';
import type { FetchLike } from './cloud-call.js';
import type { Compression } from './compression.js';
import { CatalogSearchError } from './errors.js';

export const DEFAULT_TIMEOUT_MS = 5_000;
export const DEFAULT_PATH = '/v1/catalog/search';
export const DEFAULT_FEEDBACK_PATH = '/v1/catalog/feedback';
export const DEFAULT_DEADLINE_MARGIN_MS = 250;
/** The service's default MAX_DESCRIPTION_CHARS (core's): descriptions are cut to this length for ranking. */
export { DEFAULT_MAX_DESCRIPTION_CHARS };

/** The client's options with their defaults filled in, every one checked. */
export interface ClientSettings {
  url: string;
  feedbackUrl: string;
  resolveToken: () => string | Promise<string>;
  timeoutMs: number;
  deadlineMarginMs: number;
  fetch: FetchLike;
  fallback: boolean;
  compression: Compression;
  /** Undefined when the breaker is disabled (`breaker: false`). */
  breaker: CircuitBreaker | undefined;
  maxDescriptionChars: number;
}

/** Reads and checks the options, in order; a bad one throws a CatalogSearchError naming it. */
export function clientSettings(options: CatalogSearchClientOptions): ClientSettings {
  const url = searchUrl(options.baseUrl, options.path ?? DEFAULT_PATH);
  const resolveToken = tokenSource(options);
  const timeoutMs = checkTimeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS, 'timeoutMs');
  const deadlineMarginMs = options.deadlineMarginMs ?? DEFAULT_DEADLINE_MARGIN_MS;
  if (!Number.isFinite(deadlineMarginMs) || deadlineMarginMs < 0) {
    throw new CatalogSearchError('deadlineMarginMs must be a finite number >= 0');
  }
  // Resolved per call, so a fetch patched in later (instrumentation, tests) is used.
  const fetch: FetchLike = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const fallback = options.fallback ?? true;
  const compression = options.compression ?? 'gzip';
  if (compression !== 'gzip' && compression !== 'none')
    throw new CatalogSearchError('compression must be "gzip" or "none"');
  const breaker = options.breaker === false ? undefined : new CircuitBreaker(options.breaker);
  const maxDescriptionChars = options.maxDescriptionChars ?? DEFAULT_MAX_DESCRIPTION_CHARS;
  if (!Number.isInteger(maxDescriptionChars) || maxDescriptionChars < 1) {
    throw new CatalogSearchError('maxDescriptionChars must be an integer >= 1');
  }
  const feedbackUrl = searchUrl(options.baseUrl, options.feedbackPath ?? DEFAULT_FEEDBACK_PATH);
  return {
    url,
    feedbackUrl,
    resolveToken,
    timeoutMs,
    deadlineMarginMs,
    fetch,
    fallback,
    compression,
    breaker,
    maxDescriptionChars,
  };
}

function searchUrl(baseUrl: string, path: string): string {
  let url: URL;
  try {
    url = new URL(`${baseUrl.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`);
  } catch {
    throw new CatalogSearchError(`baseUrl is not a valid URL: ${JSON.stringify(baseUrl)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CatalogSearchError(`baseUrl must be http: or https:, got ${url.protocol}`);
  }
  return url.href;
}

function tokenSource(options: CatalogSearchClientOptions): () => string | Promise<string> {
  const { token, getToken } = options;
  if (token !== undefined && getToken !== undefined) throw new CatalogSearchError('give token or getToken, not both');
  if (getToken !== undefined) return getToken;
  if (typeof token === 'string' && token !== '') return () => token;
  throw new CatalogSearchError('missing credentials: give token or getToken');
}

/** The longest timers wait: a longer delay fires at once (Node, browsers), so every search would time out. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A search's budget (the client's `timeoutMs`, or a search's own). */
export function checkTimeout(value: number, name: string): number {
  if (!Number.isFinite(value) || value <= 0 || value > MAX_TIMER_MS) {
    throw new CatalogSearchError(`${name} must be a number > 0 and <= ${MAX_TIMER_MS}`);
  }
  return value;
}
