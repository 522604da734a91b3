import type { CatalogSearchClientOptions, SearchEvent, SearchOutcome } from './client-contract.js';
import { monotonicNow } from './deadline.js';
import { asCatalogError } from './errors.js';
import { CONFIGURATION_REASONS } from './fallback-reason.js';

/**
 * Runs one search and tells `onSearch` how it settled (source, duration, request id, fallback
 * reason, or the error it rejected with). The outcome or the rejection passes through unchanged.
 */
export async function observedSearch(
  options: CatalogSearchClientOptions,
  requestId: string,
  search: () => Promise<SearchOutcome>,
): Promise<SearchOutcome> {
  const startedAt = monotonicNow();
  try {
    const outcome = await search();
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
}

function observe(onSearch: CatalogSearchClientOptions['onSearch'], event: SearchEvent): void {
  if (!onSearch) return;
  try {
    onSearch(event);
  } catch {
    // Telemetry must not cost the router its tools.
  }
}
