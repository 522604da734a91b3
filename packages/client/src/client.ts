import type { SearchRequest } from '@catalog-search/core';
import type {
  CatalogSearchClient,
  CatalogSearchClientOptions,
  SearchOptions,
  SearchOutcome,
} from './client-contract.js';
import { checkTimeout, clientSettings, type ClientSettings } from './client-options.js';
import { CloudSearch } from './cloud-search.js';
import { startDeadline } from './deadline.js';
import { APIUserAbortError, asCatalogError } from './errors.js';
import { LocalFallback } from './local-fallback.js';
import { OutcomeReporter } from './outcome-reports.js';
import { newRequestId } from './request-id.js';
import { observedSearch } from './search-events.js';
import { traceHeaders } from './trace-context.js';
import { prepareRequest } from './validation.js';

/**
 * The client: checked options, the cloud side (breaker, references, the call), the local fallback,
 * and the outcome-report queue, composed. Each search goes through `searchOnce`.
 */
export function createCatalogSearchClient(options: CatalogSearchClientOptions): CatalogSearchClient {
  const settings = clientSettings(options);
  const local = new LocalFallback(options, {
    enabled: settings.fallback,
    url: settings.url,
    maxDescriptionChars: settings.maxDescriptionChars,
  });
  const cloud = new CloudSearch(options, settings, () => local.cloudAnswered());
  const reporter = new OutcomeReporter(
    {
      url: settings.feedbackUrl,
      fetch: settings.fetch,
      resolveToken: settings.resolveToken,
      projectId: options.projectId,
      userAgent: options.userAgent,
    },
    options.reports,
  );
  const parts: SearchParts = { options, settings, cloud, local };

  return {
    async search(request, searchOptions = {}) {
      const requestId = searchOptions.requestId ?? newRequestId();
      return observedSearch(options, requestId, () => searchOnce(parts, request, { ...searchOptions, requestId }));
    },
    prepare(tools) {
      local.prepare(tools);
    },
    circuit: () => cloud.circuit(),
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

interface SearchParts {
  options: CatalogSearchClientOptions;
  settings: ClientSettings;
  cloud: CloudSearch;
  local: LocalFallback;
}

/** One search: the breaker's gate, the cloud within one budget, the local answer when the cloud fails. */
async function searchOnce(
  { options, settings, cloud, local }: SearchParts,
  request: SearchRequest,
  searchOptions: SearchOptions & { requestId: string },
): Promise<SearchOutcome> {
  const { signal, requestId } = searchOptions;
  if (signal?.aborted) throw new APIUserAbortError({ cause: signal.reason });
  // A malformed envelope is a bug in the caller: it fails the same way locally and in the cloud,
  // so it is thrown, not hidden behind a fallback that would repeat forever. Unusable tools are
  // skipped, as the service skips them.
  const prepared = prepareRequest(request);
  const callTimeoutMs = checkTimeout(searchOptions.timeoutMs ?? settings.timeoutMs, 'timeoutMs');
  const trace = traceHeaders(searchOptions, options.traceContext);

  const circuitOpen = cloud.refusal(request, prepared, trace, callTimeoutMs);
  if (circuitOpen) return local.answer(prepared, circuitOpen, requestId, signal);
  // A cloud call still pending at half its budget may well time out: analyse the tool list for
  // local ranking meanwhile (the request is long sent, the thread is idle), so a fallback then
  // costs a warm ranking instead of a cold one. Nearly free when the list is already cached.
  const warmUp = setTimeout(() => local.warmUp(prepared), callTimeoutMs / 2);
  // One budget for the whole cloud side of the search: the list's id, the call, and the resend after a refused reference.
  const deadline = startDeadline(callTimeoutMs, signal);
  try {
    return await cloud.ask(request, prepared, requestId, deadline, trace);
  } catch (error) {
    if (error instanceof APIUserAbortError) {
      cloud.abandoned();
      throw error;
    }
    const failure = asCatalogError(error);
    cloud.failed(failure);
    return local.answer(prepared, failure, requestId, signal);
  } finally {
    deadline.dispose();
    clearTimeout(warmUp);
  }
}
