import { createRankCache, type McpServerTools, type PreparedSearch, type ToolInfo } from '@catalog-search/core';
import type { CatalogSearchClientOptions, FallbackEvent, SearchOutcome } from './client-contract.js';
import { APIUserAbortError, type CatalogSearchError } from './errors.js';
import { CONFIGURATION_REASONS, fallbackReasonFor, type FallbackReason } from './fallback-reason.js';
import { prepareLocally, searchLocally, usableTools, type LocalSearch } from './local-search.js';

/** Reasons the console is told about when the router has no `onFallback`: the cloud refused the credentials. */
const REFUSED_CREDENTIALS: ReadonlySet<FallbackReason> = new Set(['unauthorized', 'forbidden']);

/**
 * The client's local side: the answer when the cloud fails (core's ranking, as the service's with no
 * model), who is told about it (`onFallback`, or the console once for refused credentials), and the
 * rank cache behind it, warmed by `prepare` or while a cloud call is slow.
 */
export class LocalFallback {
  // The router sends the same tool list every time: one cache per client keeps repeat fallbacks fast.
  readonly #local: LocalSearch;
  // The refused-credentials reason last warned about on the console (reset by a cloud answer).
  #warnedReason: FallbackReason | undefined;

  constructor(
    /** Read at each fallback: `onFallback`. */
    private readonly options: CatalogSearchClientOptions,
    private readonly settings: { enabled: boolean; url: string; maxDescriptionChars: number },
  ) {
    this.#local = { cache: createRankCache(), maxDescriptionChars: settings.maxDescriptionChars };
  }

  /** The local answer to a search the cloud did not answer, or `error` thrown when fallback is off. */
  answer(
    request: PreparedSearch,
    error: CatalogSearchError,
    requestId: string,
    signal: AbortSignal | undefined,
  ): SearchOutcome {
    if (!this.settings.enabled) throw error;
    const reason = fallbackReasonFor(error);
    notify(this.options.onFallback, {
      reason,
      error,
      requestId,
      configurationProblem: CONFIGURATION_REASONS.has(reason),
    });
    // A refused token must not look like a working router: unless the router watches fallbacks itself,
    // say so on the console, once until the cloud answers again (every search would say it otherwise).
    if (this.options.onFallback === undefined && REFUSED_CREDENTIALS.has(reason) && this.#warnedReason !== reason) {
      this.#warnedReason = reason;
      console.warn(
        `catalog-search client: the service refused the ${reason === 'forbidden' ? 'project (403)' : 'token (401)'} ` +
          `at ${this.settings.url}: searches are answered locally until this is fixed (${error.message}; request ${requestId})`,
      );
    }
    if (signal?.aborted) throw new APIUserAbortError({ cause: signal.reason });
    return { ...searchLocally(request, this.#local, requestId, reason), source: 'local', fallbackReason: reason };
  }

  /** The cloud answered: a later refusal of the credentials is worth a console line again. */
  cloudAnswered(): void {
    this.#warnedReason = undefined;
  }

  /** `client.prepare`: analyses a router's tool list ahead of the first fallback on it. */
  prepare(tools: ToolInfo[] | McpServerTools[]): void {
    prepareLocally(usableTools(tools), this.#local);
  }

  /** Analyses a search's tools while its cloud call is slow; never throws. */
  warmUp(request: PreparedSearch): void {
    try {
      prepareLocally(request.tools, this.#local);
    } catch {
      // Only an optimisation: the fallback, if it comes, ranks (and reports) on its own.
    }
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
