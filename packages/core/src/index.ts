export * from './schemas.js';
export type { RankCache, RankInput, RankOptions, RankedTool } from './ranking/types.js';
export { rankOkapiBm25, tokenizePlain } from './ranking/okapi-bm25.js';
export { rankTools } from './ranking/rank.js';
export { DEFAULT_MAX_DESCRIPTION_CHARS } from './ranking/tool-content.js';
export { createRankCache, type RankCacheOptions } from './ranking/rank-cache.js';
export { toSearchResult } from './ranking/to-search-result.js';
export { canonicalToolSet, toolSetId, toolSetIdOf } from './tool-sets/tool-set-id.js';
