import type { LlmConfig } from '../config.js';
import { createReranker, type Reranker as LlmStage, type RerankerConfig } from '../rerank/index.js';
import type { Reranker, RerankOutcome } from './types.js';

/**
 * The pipeline's rerank seam backed by the LLM stage (src/rerank): it hands over every lexical
 * match (the stage chooses its own candidates by token budget) and converts the request deadline
 * from the wall clock to the monotonic clock the stage runs on.
 */
export function llmReranker(stage: LlmStage): Reranker {
  return {
    candidateCount: Number.POSITIVE_INFINITY,
    async rerank(input): Promise<RerankOutcome> {
      const { request } = input;
      const outcome = await stage.rerank(
        {
          query: request.query,
          ...(request.context === undefined ? {} : { context: request.context }),
          tools: request.tools,
          lexical: input.candidates,
          maxResults: input.maxResults,
          rankCache: input.rankCache,
        },
        {
          projectId: input.projectId,
          signal: input.signal,
          deadline: performance.now() + (input.deadlineAt - Date.now()),
          ...(input.traceHeaders ? { headers: input.traceHeaders } : {}),
        },
      );
      const stats = {
        cached: outcome.cached,
        shared: outcome.shared,
        candidates: outcome.candidates,
        promptTokens: outcome.promptTokens,
        modelMs: Math.round(outcome.modelMs),
        ...(outcome.usage ? { usage: outcome.usage } : {}),
      };
      if (outcome.ranker === 'llm') {
        return { ranker: 'llm', ranked: outcome.ranked, ...(outcome.degraded === 'partial' ? { degraded: 'partial' } : {}), stats };
      }
      return { ranker: 'bm25', degraded: outcome.degraded ?? 'timeout', stats };
    },
  };
}

/** The stage as configured by LLM_* (see README, "LLM rerank"); `fetch` lets tests route the SDK. */
export function llmRerankerFromConfig(
  llm: LlmConfig,
  extra: Pick<RerankerConfig, 'fetch' | 'sharedAnswers' | 'onUpstreamFailure'> = {},
): Reranker {
  return llmReranker(
    createReranker({
      baseURL: llm.baseUrl,
      ...(llm.apiKey ? { apiKey: llm.apiKey } : {}),
      model: llm.model,
      promptTokenBudget: llm.promptTokenBudget,
      cacheTtlMs: llm.cacheTtlMs,
      cacheMaxEntries: llm.cacheEntriesPerProject,
      ...extra,
    }),
  );
}
