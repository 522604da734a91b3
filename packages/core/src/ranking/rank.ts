import { rankOkapiBm25 } from './okapi-bm25.js';
import type { RankedTool, RankInput, RankOptions } from './types.js';

/**
 * The lexical ranker shared by the service's BM25 stage and the client's local fallback.
 * Interim: delegates to the plain baseline until the BM25F ranker (issue 2) replaces it.
 */
export function rankTools(input: RankInput, options: RankOptions = {}): RankedTool[] {
  return rankOkapiBm25(input, options);
}
