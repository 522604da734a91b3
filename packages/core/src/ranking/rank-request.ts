import { DEFAULT_MAX_RESULTS } from '../schemas.js';
import { rankTools, rankToolsInSteps } from './rank.js';
import type { RankedTool, RankInput, RankOptions } from './types.js';

/**
 * The lexical answer to a search request: the service's BM25 stage and the client's local fallback both
 * call this, so that they rank alike. Best first, at most `options.limit` tools (default: the request's
 * maxResults, else DEFAULT_MAX_RESULTS); `context` only picks the platform (see rankTools).
 */
export function rankRequest(request: RankInput & { maxResults?: number }, options: RankOptions = {}): RankedTool[] {
  return rankTools(request, requestOptions(request, options));
}

/** rankRequest in steps (see rankToolsInSteps), for a server that lets other work run between them. */
export function rankRequestInSteps(request: RankInput & { maxResults?: number }, options: RankOptions = {}): Generator<void, RankedTool[], void> {
  return rankToolsInSteps(request, requestOptions(request, options));
}

function requestOptions(request: { maxResults?: number }, options: RankOptions): RankOptions {
  return { ...options, limit: options.limit ?? request.maxResults ?? DEFAULT_MAX_RESULTS };
}
