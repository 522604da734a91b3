import type { LlmConfig } from '../config/index.js';
import { createReranker, type LlmReranker, type RerankerConfig } from './reranker.js';

/** The stage as configured by LLM_* (see docs/ranking.md, "LLM reranking"); `fetch` lets tests route the SDK. */
export function rerankerFromConfig(
  llm: LlmConfig,
  extra: Pick<RerankerConfig, 'fetch' | 'sharedAnswers' | 'onUpstreamFailure' | 'memory'> = {},
): LlmReranker {
  return createReranker({
    baseURL: llm.baseUrl,
    ...(llm.apiKey ? { apiKey: llm.apiKey } : {}),
    model: llm.model,
    promptTokenBudget: llm.promptTokenBudget,
    cacheTtlMs: llm.cacheTtlMs,
    cacheMaxEntries: llm.cacheEntriesPerProject,
    ...extra,
  });
}
