import { DEFAULT_MAX_RESULTS } from '../schemas.js';
import { rankTools } from './rank.js';
import type { RankedTool, RankInput, RankOptions } from './types.js';

/**
 * The lexical answer to a search request: the service's BM25 stage and the client's local fallback both
 * call this, so that they rank alike. Best first, at most `options.limit` tools (default: the request's
 * maxResults, else DEFAULT_MAX_RESULTS); `context` is not scored (see rankTools).
 */
export function rankRequest(request: RankInput & { maxResults?: number }, options: RankOptions = {}): RankedTool[] {
  return rankTools(request, { ...options, limit: options.limit ?? request.maxResults ?? DEFAULT_MAX_RESULTS });
}
