import {
  adjustRelevance,
  toSearchResult,
  type PreparedSearch,
  type RankedTool,
  type SearchMeta,
  type SearchResponse,
} from '@catalog-search/core';

/**
 * The response stage: boosts and `minRelevance` applied (core's `adjustRelevance`, as in the
 * client's fallback), best first, each tool through core's `toSearchResult`, and the whole `meta`: how
 * the stages ran, the skipped tools, and the list's `toolSet` id. This is the one place the ranking is
 * cut to `maxResults`.
 */
export function respond(
  ranked: readonly RankedTool[],
  request: PreparedSearch,
  meta: SearchMeta,
  toolSet: string | undefined,
): SearchResponse {
  return {
    results: adjustRelevance(ranked, request).slice(0, request.maxResults).map(toSearchResult),
    meta: { ...meta, ...request.skippedMeta, ...(toolSet === undefined ? {} : { toolSet }) },
  };
}

/**
 * The id `meta.toolSet` gives: the other replicas can use it only once the list is stored (bounded by
 * REDIS_TIMEOUT_MS), and a list no store kept gets none, so that its caller sends it in full again.
 */
export async function answerableToolSet(list: {
  toolSet?: string | undefined;
  kept?: Promise<boolean> | undefined;
}): Promise<string | undefined> {
  if (list.toolSet === undefined) return undefined;
  return list.kept === undefined || (await list.kept) ? list.toolSet : undefined;
}
