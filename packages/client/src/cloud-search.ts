import type { PreparedSearch, SearchRequest, SearchResponse } from '@catalog-search/core';
import type { CircuitSnapshot } from './circuit-breaker.js';
import type { CatalogSearchClientOptions, SearchOutcome } from './client-contract.js';
import type { ClientSettings } from './client-options.js';
import { callCloud } from './cloud-call.js';
import { startDeadline, type Deadline } from './deadline.js';
import {
  APIError,
  asCatalogError,
  type CatalogSearchError,
  CircuitOpenError,
  InternalServerError,
  RateLimitError,
} from './errors.js';
import { newRequestId } from './request-id.js';
import { runtimeStreamsBodies } from './streamed-body.js';
import { isRefusedReference, ToolSetReferences } from './tool-set-references.js';
import type { TraceHeaders } from './trace-context.js';

/**
 * The cloud side of the client's searches, over cloud-call.ts's single POST: the circuit breaker's
 * gate and bookkeeping, the last failure, the tool-set references the service handed out, and the
 * background probe while the circuit is open.
 */
export class CloudSearch {
  #lastFailure: CatalogSearchError | undefined;
  // Checked here, not on the first search: in Node the check loads fetch's implementation, which
  // a cold process would otherwise pay for inside its first search.
  readonly #streaming = { enabled: runtimeStreamsBodies() };
  readonly #references = new ToolSetReferences();

  constructor(
    /** Read at each call: `projectId`, `userAgent`. */
    private readonly options: CatalogSearchClientOptions,
    private readonly settings: ClientSettings,
    /** Told of every cloud answer. */
    private readonly onAnswered: () => void,
  ) {}

  /** The breaker's state (`closed` when the breaker is disabled). */
  circuit(): CircuitSnapshot {
    return this.settings.breaker?.snapshot() ?? { state: 'closed', consecutiveFailures: 0 };
  }

  /**
   * The breaker's gate: undefined when this search may call the cloud; while the circuit is open,
   * the error to answer locally with (and a background probe started when one is due).
   */
  refusal(
    request: SearchRequest,
    prepared: PreparedSearch,
    trace: TraceHeaders | undefined,
    timeoutMs: number,
  ): CircuitOpenError | undefined {
    const { breaker } = this.settings;
    if (!breaker || breaker.tryAcquire()) return undefined;
    if (breaker.tryBackgroundProbe()) this.#probeInBackground(request, prepared, trace, timeoutMs);
    const retryAt = breaker.snapshot().retryAt ?? breaker.now();
    return new CircuitOpenError(retryAt, this.#lastFailure);
  }

  /**
   * The cloud side of one search: the list's id, the call, and the resend after a refused reference,
   * all within `deadline`. Resolves with the cloud's outcome; rejects with a CatalogSearchError.
   * Updates the breaker and the references it learns.
   */
  async ask(
    request: SearchRequest,
    prepared: PreparedSearch,
    requestId: string,
    deadline: Deadline,
    trace: TraceHeaders | undefined,
    background = false,
  ): Promise<SearchOutcome> {
    const references = this.#references;
    // The last call failed (tracked with or without a breaker).
    const failing = this.#lastFailure !== undefined;
    // While the cloud is failing, its call most likely fails too: no id work before it (the list is sent).
    const toolSet = references.any && !failing ? await references.idOf(prepared.list) : undefined;
    const call = (reference: string | undefined) =>
      callCloud(request, {
        fetch: this.settings.fetch,
        url: this.settings.url,
        resolveToken: this.settings.resolveToken,
        deadline,
        deadlineMarginMs: this.settings.deadlineMarginMs,
        requestId,
        prepared,
        projectId: this.options.projectId,
        userAgent: this.options.userAgent,
        trace,
        // While the cloud is failing, the next call most likely fails too: spare a waiting search the gzip
        // work. A background probe keeps it: nobody waits on it, and a failing service that still answers
        // (5xx) then gets ~110 KB instead of ~800 KB of a 1,000-tool list every probe interval.
        compression: failing && !background ? 'none' : this.settings.compression,
        streaming: this.#streaming,
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
    this.settings.breaker?.success();
    this.#lastFailure = undefined;
    this.onAnswered();
    // The service reported the list's skipped tools when it was sent; a reference names only its
    // usable tools. The router gets them on every answer, as from a full list or the local fallback.
    const meta =
      byReference && response.meta.skippedCount === undefined
        ? { ...response.meta, ...prepared.skippedMeta }
        : response.meta;
    return { results: response.results, meta, source: 'cloud' };
  }

  /** The caller gave up on the search: it says nothing about the cloud. */
  abandoned(): void {
    this.settings.breaker?.abandon();
  }

  /** Counts a failed call toward opening the breaker, unless the service merely refused the request. */
  failed(failure: CatalogSearchError): void {
    if (refusedAsInvalid(failure)) {
      // The service answered and refused this request (e.g. a model's over-long query): that says
      // nothing about the cloud, so it neither counts toward opening the breaker nor closes it.
      this.settings.breaker?.abandon();
    } else {
      this.#lastFailure = failure;
      this.settings.breaker?.failure(retryAfterOf(failure));
    }
  }

  /**
   * While the circuit is open: the same search sent to the cloud in the background (its own budget,
   * not the caller's signal), so that a service that came back is found without any search waiting
   * for it. Its answer is dropped; a success closes the circuit for the next search.
   */
  #probeInBackground(
    request: SearchRequest,
    prepared: PreparedSearch,
    trace: TraceHeaders | undefined,
    timeout: number,
  ): void {
    const deadline = startDeadline(timeout, undefined);
    this.ask(request, prepared, newRequestId(), deadline, trace, true)
      .then(
        () => undefined,
        (error: unknown) => {
          const failure = asCatalogError(error);
          if (refusedAsInvalid(failure)) return this.settings.breaker?.abandon();
          this.#lastFailure = failure;
          this.settings.breaker?.probeFailed(retryAfterOf(failure));
        },
      )
      .finally(() => deadline.dispose());
  }
}

/** A 400: the service is up and refused this one request as invalid (the next may well be fine). */
const refusedAsInvalid = (error: CatalogSearchError): boolean => error instanceof APIError && error.status === 400;

/** The wait a 429 or 503 asked for, which the breaker honours. */
function retryAfterOf(error: CatalogSearchError): number | undefined {
  if (error instanceof RateLimitError) return error.retryAfterMs;
  if (error instanceof InternalServerError && error.status === 503) return error.retryAfterMs;
  return undefined;
}
