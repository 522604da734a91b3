export { createReranker, DEFAULT_CACHE_TTL_MS, DEFAULT_PROMPT_TOKEN_BUDGET } from './reranker.js';
export type { PromptPlan, Reranker, RerankerConfig, RerankRequest, SharedAnswerCache, UpstreamFailure } from './reranker.js';
export type { RawGrade } from './grade-parser.js';
export type { DegradedReason, RerankOutcome, RerankRequestOptions, TokenUsage } from './types.js';
export { GRADE_BANDS } from './merge-ranking.js';
export { countTextTokens } from './token-count.js';
