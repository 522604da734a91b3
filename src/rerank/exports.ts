export { createReranker, DEFAULT_PROMPT_TOKEN_BUDGET } from './reranker.js';
export type { LlmReranker, RerankerConfig, SharedAnswerCache } from './reranker.js';
export type { RawGrade } from './grade-parser.js';
export { rerankerFromConfig } from './from-config.js';
export { GRADE_BANDS } from './merge-ranking.js';
