export * from './schemas.js';
export type { RankInput, RankOptions, RankedTool } from './ranking/types.js';
export { rankOkapiBm25, tokenizePlain } from './ranking/okapi-bm25.js';
