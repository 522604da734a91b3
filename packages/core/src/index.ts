export * from './schemas.js';
export type { RankCache, RankInput, RankOptions, RankedTool } from './ranking/types.js';
export { capRelevanceDownTheList } from './ranking/calibrate.js';
export { rankTools } from './ranking/rank.js';
export { rankRequest } from './ranking/rank-request.js';
export { findDuplicateToolKey } from './tool-keys.js';
export { DEFAULT_MAX_DESCRIPTION_CHARS } from './ranking/tool-reader.js';
export { createRankCache, type RankCacheOptions } from './ranking/rank-cache.js';
export { toSearchResult } from './ranking/to-search-result.js';
