export * from './schemas.js';
export * from './feedback-schemas.js';
export type { RankCache, RankInput, RankOptions, RankedTool } from './ranking/types.js';
export { RULE_FAMILIES, type RuleFamily } from './everyday/rule-families.js';
export { capRelevanceDownTheList } from './ranking/calibrate.js';
export { round3 } from './numbers/round.js';
export {
  rankTools,
  rankToolsBySubQuery,
  rankToolsBySubQueryInSteps,
  rankToolsInSteps,
  type RankingBySubQuery,
} from './ranking/rank.js';
export { postRanking, receiveRanking, type PostedRanking } from './ranking/posted-ranking.js';
export { DEFAULT_MAX_DESCRIPTION_CHARS } from './ranking/tool-reader.js';
export { createRankCache, type RankCacheOptions } from './ranking/rank-cache.js';
export { toSearchResult } from './ranking/to-search-result.js';
export { detachString } from './text/detach.js';
export { tokenize } from './text/tokenize.js';
export { REQUEST_FILLER } from './languages/stop-words.js';
export { LANGUAGE_CODES, loadLanguages, loadedLanguages } from './languages/registry.js';
export { FNV_OFFSET, fnvStep } from './text/fnv.js';
export {
  codePointLength,
  codePointPrefix,
  exceedsCodePoints,
  DEFAULT_MAX_CONTEXT_CHARS,
  DEFAULT_MAX_QUERY_CHARS,
  RANKED_QUERY_CHARS,
} from './text/text-length.js';
export { inspectNesting, MAX_NESTING_DEPTH } from './request/nesting-depth.js';
export {
  countTools,
  MAX_LISTED_PROBLEMS,
  readsAs,
  readToolList,
  type RequestProblem,
  type ToolList,
  type ToolListReading,
} from './request/tool-list.js';
export { compileToolFilter, type ToolFilter } from './request/tool-filter.js';
export { compileToolNamePatterns, type ToolNameMatcher } from './request/tool-name-patterns.js';
export { adjustRelevance, needsWholeRanking, type RelevanceAdjustments } from './request/relevance-adjustments.js';
export {
  FILTER_TIME_BUDGET_MS,
  prepareSearch,
  type Preparation,
  type PreparedSearch,
  type PrepareOptions,
} from './request/prepare-search.js';
export { MAX_STEPS_PER_TOOL, runToolNameRules, type NamedTool, type ToolNameRun } from './request/tool-name-rules.js';
export { canonicalToolSet, toolSetId, toolSetIdOf } from './tool-sets/tool-set-id.js';
export { sameJson } from './tool-sets/same-json.js';
export { abortAfter, type AbortAfter } from './waits/abort-after.js';
export { boundedWait, raceSignal } from './waits/bounded-wait.js';
