import {
  createRankCache,
  DEFAULT_MAX_DESCRIPTION_CHARS,
  type McpServerTools,
  type PreparedSearch,
  type SearchRequest,
  type SearchResponse,
  type ToolInfo,
} from '@catalog-search/core';
import { CircuitBreaker, type CircuitBreakerOptions, type CircuitSnapshot } from './circuit-breaker.js';
import { callCloud, type FetchLike } from './cloud-call.js';
import type { Compression } from './compression.js';
import {
  APIError,
  APIUserAbortError,
  CatalogSearchError,
  CircuitOpenError,
  InternalServerError,
  RateLimitError,
} from './errors.js';
import { monotonicNow, startDeadline, type Deadline } from './deadline.js';
import { CONFIGURATION_REASONS, fallbackReasonFor, type FallbackReason } from './fallback-reason.js';
import { prepareLocally, searchLocally, usableTools, type LocalSearch } from './local-search.js';
import {
  OutcomeReporter,
  type FlushOptions,
  type OutcomeReport,
  type OutcomeReportOptions,
} from './outcome-reports.js';
import { newRequestId } from './request-id.js';
import { runtimeStreamsBodies } from './streamed-body.js';
import { isRefusedReference, ToolSetReferences } from './tool-set-references.js';
import { traceHeaders, type TraceContextHeaders, type TraceHeaders } from './trace-context.js';
import { prepareRequest } from './validation.js';

export const DEFAULT_TIMEOUT_MS = 5_000;
export const DEFAULT_PATH = '/v1/catalog/search';
export const DEFAULT_FEEDBACK_PATH = '/v1/catalog/feedback';
export const DEFAULT_DEADLINE_MARGIN_MS = 250;
/** The service's default MAX_DESCRIPTION_CHARS (core's): descriptions are cut to this length for ranking. */
export { DEFAULT_MAX_DESCRIPTION_CHARS };

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

export function createCatalogSearchClient(options: CatalogSearchClientOptions): CatalogSearchClient {
  const url = searchUrl(options.baseUrl, options.path ?? DEFAULT_PATH);
  const resolveToken = tokenSource(options);
  const timeoutMs = checkTimeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS, 'timeoutMs');
  const deadlineMarginMs = options.deadlineMarginMs ?? DEFAULT_DEADLINE_MARGIN_MS;
  if (!Number.isFinite(deadlineMarginMs) || deadlineMarginMs < 0) {
    throw new CatalogSearchError('deadlineMarginMs must be a finite number >= 0');
  }
  // Resolved per call, so a fetch patched in later (instrumentation, tests) is used.
  const fetchImpl: FetchLike = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const fallback = options.fallback ?? true;
  const compression = options.compression ?? 'gzip';
  if (compression !== 'gzip' && compression !== 'none')
    throw new CatalogSearchError('compression must be "gzip" or "none"');
  const breaker = options.breaker === false ? undefined : new CircuitBreaker(options.breaker);
  const maxDescriptionChars = options.maxDescriptionChars ?? DEFAULT_MAX_DESCRIPTION_CHARS;
  if (!Number.isInteger(maxDescriptionChars) || maxDescriptionChars < 1) {
    throw new CatalogSearchError('maxDescriptionChars must be an integer >= 1');
  }
  // The router sends the same tool list every time: one cache per client keeps repeat fallbacks fast.
  const local = { cache: createRankCache(), maxDescriptionChars };
  let lastFailure: CatalogSearchError | undefined;
  // The refused-credentials reason last warned about on the console (reset by a cloud answer).
  let warnedReason: FallbackReason | undefined;
  // Checked here, not on the first search: in Node the check loads fetch's implementation, which
  // a cold process would otherwise pay for inside its first search.
  const streaming = { enabled: runtimeStreamsBodies() };
  const references = new ToolSetReferences();
  const reporter = new OutcomeReporter(
    {
      url: searchUrl(options.baseUrl, options.feedbackPath ?? DEFAULT_FEEDBACK_PATH),
      fetch: fetchImpl,
      resolveToken,
      projectId: options.projectId,
      userAgent: options.userAgent,
    },
    options.reports,
  );

  const answerLocally = (
    request: PreparedSearch,
    error: CatalogSearchError,
    requestId: string,
    signal: AbortSignal | undefined,
  ): SearchOutcome => {
    if (!fallback) throw error;
    const reason = fallbackReasonFor(error);
    notify(options.onFallback, { reason, error, requestId, configurationProblem: CONFIGURATION_REASONS.has(reason) });
    // A refused token must not look like a working router: unless the router watches fallbacks itself,
    // say so on the console, once until the cloud answers again (every search would say it otherwise).
    if (options.onFallback === undefined && REFUSED_CREDENTIALS.has(reason) && warnedReason !== reason) {
      warnedReason = reason;
      console.warn(
        `catalog-search client: the service refused the ${reason === 'forbidden' ? 'project (403)' : 'token (401)'} ` +
          `at ${url}: searches are answered locally until this is fixed (${error.message}; request ${requestId})`,
      );
    }
    if (signal?.aborted) throw new APIUserAbortError({ cause: signal.reason });
    return { ...searchLocally(request, local, requestId, reason), source: 'local', fallbackReason: reason };
  };

  /**
   * The cloud side of one search: the list's id, the call, and the resend after a refused reference,
   * all within `deadline`. Resolves with the cloud's outcome; rejects with a CatalogSearchError.
   * Updates the breaker and the references it learns.
   */
  const askCloud = async (
    request: SearchRequest,
    prepared: PreparedSearch,
    requestId: string,
    deadline: Deadline,
    trace: TraceHeaders | undefined,
    background = false,
  ): Promise<SearchOutcome> => {
    // The last call failed (tracked with or without a breaker).
    const failing = lastFailure !== undefined;
    // While the cloud is failing, its call most likely fails too: no id work before it (the list is sent).
    const toolSet = references.any && !failing ? await references.idOf(prepared.list) : undefined;
    const call = (reference: string | undefined) =>
      callCloud(request, {
        fetch: fetchImpl,
        url,
        resolveToken,
        deadline,
        deadlineMarginMs,
        requestId,
        prepared,
        projectId: options.projectId,
        userAgent: options.userAgent,
        trace,
        // While the cloud is failing, the next call most likely fails too: spare a waiting search the gzip
        // work. A background probe keeps it: nobody waits on it, and a failing service that still answers
        // (5xx) then gets ~110 KB instead of ~800 KB of a 1,000-tool list every probe interval.
        compression: failing && !background ? 'none' : compression,
        streaming,
        toolSet: reference,
      });
    let response: SearchResponse;
    let byReference = false;
    let resent = false;
    const held = references.held(toolSet);
    if (held) {
      try {
        response = await call(held.id);
        byReference = true;
      } catch (error) {
        if (!isRefusedReference(error)) throw error;
        // The service lost the list, or does not know references: send it once in full, in what is left of the budget.
        references.refused(held);
        resent = true;
        response = await call(undefined);
      }
    } else {
      response = await call(undefined);
    }
    references.learn(response.meta.toolSet, resent);
    breaker?.success();
    lastFailure = undefined;
    warnedReason = undefined;
    // The service reported the list's skipped tools when it was sent; a reference names only its
    // usable tools. The router gets them on every answer, as from a full list or the local fallback.
    const meta =
      byReference && response.meta.skippedCount === undefined
        ? { ...response.meta, ...prepared.skippedMeta }
        : response.meta;
    return { results: response.results, meta, source: 'cloud' };
  };

  const asCatalogError = (error: unknown): CatalogSearchError =>
    error instanceof CatalogSearchError ? error : new CatalogSearchError('unexpected client failure', { cause: error });

  /**
   * While the circuit is open: the same search sent to the cloud in the background (its own budget,
   * not the caller's signal), so that a service that came back is found without any search waiting
   * for it. Its answer is dropped; a success closes the circuit for the next search.
   */
  const probeInBackground = (
    request: SearchRequest,
    prepared: PreparedSearch,
    trace: TraceHeaders | undefined,
    timeout: number,
  ): void => {
    const deadline = startDeadline(timeout, undefined);
    askCloud(request, prepared, newRequestId(), deadline, trace, true)
      .then(
        () => undefined,
        (error: unknown) => {
          const failure = asCatalogError(error);
          if (refusedAsInvalid(failure)) return breaker?.abandon();
          lastFailure = failure;
          breaker?.probeFailed(retryAfterOf(failure));
        },
      )
      .finally(() => deadline.dispose());
  };

  const search = async (
    request: SearchRequest,
    searchOptions: SearchOptions & { requestId: string },
  ): Promise<SearchOutcome> => {
    const { signal } = searchOptions;
    if (signal?.aborted) throw new APIUserAbortError({ cause: signal.reason });
    // A malformed envelope is a bug in the caller: it fails the same way locally and in the cloud,
    // so it is thrown, not hidden behind a fallback that would repeat forever. Unusable tools are
    // skipped, as the service skips them.
    const prepared = prepareRequest(request);
    const callTimeoutMs = checkTimeout(searchOptions.timeoutMs ?? timeoutMs, 'timeoutMs');
    const requestId = searchOptions.requestId;
    const trace = traceHeaders(searchOptions, options.traceContext);

    if (breaker && !breaker.tryAcquire()) {
      if (breaker.tryBackgroundProbe()) probeInBackground(request, prepared, trace, callTimeoutMs);
      const retryAt = breaker.snapshot().retryAt ?? breaker.now();
      return answerLocally(prepared, new CircuitOpenError(retryAt, lastFailure), requestId, signal);
    }
    // A cloud call still pending at half its budget may well time out: analyse the tool list for
    // local ranking meanwhile (the request is long sent, the thread is idle), so a fallback then
    // costs a warm ranking instead of a cold one. Nearly free when the list is already cached.
    const warmUp = setTimeout(() => prepareQuietly(prepared, local), callTimeoutMs / 2);
    // One budget for the whole cloud side of the search: the list's id, the call, and the resend after a refused reference.
    const deadline = startDeadline(callTimeoutMs, signal);
    try {
      return await askCloud(request, prepared, requestId, deadline, trace);
    } catch (error) {
      if (error instanceof APIUserAbortError) {
        breaker?.abandon();
        throw error;
      }
      const failure = asCatalogError(error);
      if (refusedAsInvalid(failure)) {
        // The service answered and refused this request (e.g. a model's over-long query): that says
        // nothing about the cloud, so it neither counts toward opening the breaker nor closes it.
        breaker?.abandon();
      } else {
        lastFailure = failure;
        breaker?.failure(retryAfterOf(failure));
      }
      return answerLocally(prepared, failure, requestId, signal);
    } finally {
      deadline.dispose();
      clearTimeout(warmUp);
    }
  };

  return {
    async search(request, searchOptions = {}) {
      const startedAt = monotonicNow();
      const requestId = searchOptions.requestId ?? newRequestId();
      try {
        const outcome = await search(request, { ...searchOptions, requestId });
        observe(options.onSearch, {
          requestId,
          durationMs: monotonicNow() - startedAt,
          source: outcome.source,
          ranker: outcome.meta.ranker,
          resultCount: outcome.results.length,
          ...(outcome.fallbackReason === undefined ? {} : { fallbackReason: outcome.fallbackReason }),
          ...(outcome.fallbackReason !== undefined && CONFIGURATION_REASONS.has(outcome.fallbackReason)
            ? { configurationProblem: true as const }
            : {}),
        });
        return outcome;
      } catch (error) {
        observe(options.onSearch, {
          requestId,
          durationMs: monotonicNow() - startedAt,
          source: 'none',
          resultCount: 0,
          error: asCatalogError(error),
        });
        throw error;
      }
    },
    prepare(tools) {
      prepareLocally(usableTools(tools), local);
    },
    circuit: () => breaker?.snapshot() ?? { state: 'closed', consecutiveFailures: 0 },
    reportOutcome(report) {
      try {
        reporter.report(report);
      } catch {
        // Reporting is a side channel: nothing it does may reach the router's call path.
      }
    },
    flushReports: (flushOptions) => reporter.flush(flushOptions),
    pendingReports: () => reporter.pending,
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

function checkTimeout(value: number, name: string): number {
  if (!Number.isFinite(value) || value <= 0 || value > MAX_TIMER_MS) {
    throw new CatalogSearchError(`${name} must be a number > 0 and <= ${MAX_TIMER_MS}`);
  }
  return value;
}

/** Reasons the console is told about when the router has no `onFallback`: the cloud refused the credentials. */
const REFUSED_CREDENTIALS: ReadonlySet<FallbackReason> = new Set(['unauthorized', 'forbidden']);

/** A 400: the service is up and refused this one request as invalid (the next may well be fine). */
const refusedAsInvalid = (error: CatalogSearchError): boolean => error instanceof APIError && error.status === 400;

/** The wait a 429 or 503 asked for, which the breaker honours. */
function retryAfterOf(error: CatalogSearchError): number | undefined {
  if (error instanceof RateLimitError) return error.retryAfterMs;
  if (error instanceof InternalServerError && error.status === 503) return error.retryAfterMs;
  return undefined;
}

function prepareQuietly(request: PreparedSearch, local: LocalSearch): void {
  try {
    prepareLocally(request.tools, local);
  } catch {
    // Only an optimisation: the fallback, if it comes, ranks (and reports) on its own.
  }
}

function observe(onSearch: CatalogSearchClientOptions['onSearch'], event: SearchEvent): void {
  if (!onSearch) return;
  try {
    onSearch(event);
  } catch {
    // Telemetry must not cost the router its tools.
  }
}

function notify(onFallback: CatalogSearchClientOptions['onFallback'], event: FallbackEvent): void {
  if (!onFallback) return;
  try {
    onFallback(event);
  } catch {
    // A failing observer must not cost the router its tools.
  }
}
