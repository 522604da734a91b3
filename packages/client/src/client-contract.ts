import type { McpServerTools, SearchRequest, SearchResponse, ToolInfo } from '@catalog-search/core';
import type { CircuitBreakerOptions, CircuitSnapshot } from './circuit-breaker.js';
import type { FetchLike } from './cloud-call.js';
import type { Compression } from './compression.js';
import type { CatalogSearchError } from './errors.js';
import type { FallbackReason } from './fallback-reason.js';
import type { FlushOptions, OutcomeReport, OutcomeReportOptions } from './outcome-reports.js';
import type { TraceContextHeaders } from './trace-context.js';

export interface CatalogSearchClientOptions {
  /** Service origin (and optional base path), e.g. `https://search.example.com`. */
  baseUrl: string;
  /** A Router-issued bearer JWT. Give this or `getToken`. */
  token?: string;
  /** Called before every cloud call (inside the time budget); for tokens that rotate. */
  getToken?: () => string | Promise<string>;
  /** Whole budget of a cloud call (token, request, body) before ranking locally. Default 5,000 ms. */
  timeoutMs?: number;
  /** Path of the search route, appended to `baseUrl`. Default `/v1/catalog/search`. */
  path?: string;
  /** Kept back from the budget when telling the service its deadline (`X-Search-Deadline-Ms`). Default 250 ms. */
  deadlineMarginMs?: number;
  /** A `fetch` to use instead of the global one (proxies, custom agents, tests). */
  fetch?: FetchLike;
  /** Rank locally when the cloud fails (default `true`). `false`: reject with the typed error instead. */
  fallback?: boolean;
  /** Called on every local answer with the reason and the typed error. Exceptions it throws are ignored. */
  onFallback?: (event: FallbackEvent) => void;
  /**
   * Called once for every search when it settles (cloud or local answer, or rejection), for
   * telemetry: source, duration, request id, fallback reason. Exceptions it throws are ignored.
   */
  onSearch?: (event: SearchEvent) => void;
  /**
   * Called per search for the W3C trace context to send (`traceparent`, `tracestate`), e.g. from
   * OpenTelemetry: `() => { const c = {}; propagation.inject(context.active(), c); return c; }`.
   * A search's own `traceparent` option wins. Malformed values are not sent.
   */
  traceContext?: () => TraceContextHeaders | undefined;
  /** Circuit breaker settings, or `false` to call the cloud on every search. */
  breaker?: CircuitBreakerOptions | false;
  /** Sent as `X-Project-Id`; the service rejects (403) a token for another project. */
  projectId?: string;
  /** Sent as `User-Agent` where the runtime allows it (Node, Electron main; browsers ignore it). */
  userAgent?: string;
  /**
   * `gzip` (default): request bodies of 32 KiB or more are sent gzip-compressed
   * (`Content-Encoding: gzip`; the service accepts gzip, deflate and br). `none` for a proxy or an
   * older service that refuses compressed bodies (it would answer 415: a `bad_request` fallback).
   */
  compression?: Compression;
  /**
   * Descriptions are cut to this many characters for local ranking. Default 2,000; set it to the
   * service's MAX_DESCRIPTION_CHARS if the service changed it, so local and cloud rankings match.
   */
  maxDescriptionChars?: number;
  /** Path of the feedback route (`reportOutcome`), appended to `baseUrl`. Default `/v1/catalog/feedback`. */
  feedbackPath?: string;
  /** How `reportOutcome` queues and sends (queue bound, batching delay, timeout, an observer of drops). */
  reports?: OutcomeReportOptions;
}

export interface FallbackEvent {
  reason: FallbackReason;
  error: CatalogSearchError;
  /** The id sent as `X-Request-Id` and returned in `meta.requestId`. */
  requestId: string;
  /** True for reasons that will not fix themselves (`unauthorized`, `forbidden`, `not_found`, `bad_request`). */
  configurationProblem: boolean;
}

/** What `onSearch` sees of each search. */
export interface SearchEvent {
  /** The id sent as `X-Request-Id` and returned in `meta.requestId`. */
  requestId: string;
  /** From the call of `search()` until it settled, in milliseconds. */
  durationMs: number;
  /** `cloud` or `local` answer; `none` when the search rejected (`error` says why). */
  source: 'cloud' | 'local' | 'none';
  /** Set when `source` is `local`. */
  fallbackReason?: FallbackReason;
  /**
   * True when the answer is local for a reason that will not fix itself (`unauthorized`, `forbidden`,
   * `not_found`, `bad_request`: e.g. the cloud refused the token); absent otherwise. Log it loudly.
   */
  configurationProblem?: true;
  /** `meta.ranker` of the answer (`bm25` or `llm`); absent when the search rejected. */
  ranker?: SearchResponse['meta']['ranker'];
  resultCount: number;
  /** Set when `source` is `none`: `APIUserAbortError`, `InvalidRequestError`, or the cloud's error with `fallback: false`. */
  error?: CatalogSearchError;
}

export interface SearchOptions {
  /** Aborting rejects the search with APIUserAbortError (no fallback). */
  signal?: AbortSignal;
  /** Overrides the client's `timeoutMs` for this search. */
  timeoutMs?: number;
  /** Overrides the generated request id (`X-Request-Id`, `meta.requestId`). */
  requestId?: string;
  /** W3C `traceparent` to send with this search (the service continues the trace); overrides `traceContext`. */
  traceparent?: string;
  /** W3C `tracestate`, sent with `traceparent`. */
  tracestate?: string;
}

export interface SearchOutcome extends SearchResponse {
  /** `cloud`: the service's answer. `local`: core's BM25 ranking, computed locally. */
  source: 'cloud' | 'local';
  /** Set when `source` is `local`. */
  fallbackReason?: FallbackReason;
}

export interface CatalogSearchClient {
  search(request: SearchRequest, options?: SearchOptions): Promise<SearchOutcome>;
  /**
   * Analyses a tool list for local ranking now, so the first fallback on it is fast. Call it when
   * the router's tool list changes (at start, on `tools/list_changed`), at a moment when blocking
   * for a while is fine: it is synchronous and costs about one cold local search. Optional.
   */
  prepare(tools: ToolInfo[] | McpServerTools[]): void;
  /** The breaker's state, for health pages and logs (`closed` when the breaker is disabled). */
  circuit(): CircuitSnapshot;
  /**
   * Reports which tool the agent used for a search and how it went (`POST /v1/catalog/feedback`), so the
   * project's next searches rank it higher for similar requests. Returns at once and never throws: reports
   * are queued (bounded), batched and sent in the background; undeliverable ones are dropped. The local
   * fallback ranks without what the service learned (it has no copy of it).
   */
  reportOutcome(report: OutcomeReport | readonly OutcomeReport[]): void;
  /**
   * Sends the queued reports now (e.g. before the router exits) and resolves once each was delivered
   * or given up on (after its retries), or after `timeoutMs` (default 30,000 ms); never rejects.
   * `pendingReports()` then says how many were neither.
   */
  flushReports(options?: FlushOptions): Promise<void>;
  /** Reports not yet delivered nor given up on (queued, waiting for a retry, or being sent). */
  pendingReports(): number;
}
