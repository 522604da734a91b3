// The LLM stage in `npm run eval`:
// - `withPromptColumns(ranker)` adds, to any lexical ranker's row, how well the stage's prompt would
//   cover the gold tools at the configured token budget, without calling a model: `cand recall` (share
//   of gold tools among the prompt's candidates), `lex@k recall` (the same for the plain lexical top-k
//   of the same candidate count), `cands` and `prompt tok` (o200k tokens).
// - `llmRanker()` (`npm run eval -- --llm`) runs the stage itself against LLM_BASE_URL / LLM_MODEL,
//   so anyone with a model can measure what it adds over the lexical stage.
import {
  createRankCache,
  rankTools,
  rankToolsBySubQuery,
  type RankCache,
  type RankedTool,
  type ToolInfo,
} from '../packages/core/src/index.js';
import { createReranker, DEFAULT_PROMPT_TOKEN_BUDGET, type LlmReranker } from '../src/rerank/exports.js';
import { startDeadline } from '../src/waits/deadline.js';
import type { Dataset, EvalQuery } from './datasets.js';
import type { RankerOutput, RankerVariant } from './rankers.js';

const recall = (keys: Set<string>, relevant: string[]) =>
  relevant.length === 0 ? 0 : relevant.filter((key) => keys.has(key)).length / relevant.length;

/** The ranking the prompt is filled from: the lexical one, or the hybrid one (eval/semantic-rankers.ts). */
type CandidateRanking = (query: string[], tools: ToolInfo[], cache: RankCache) => RankedTool[] | Promise<RankedTool[]>;

const lexicalRanking: CandidateRanking = (query, tools, cache) => rankTools({ query, tools }, { cache });

async function promptColumns(
  stage: LlmReranker,
  query: EvalQuery,
  tools: ToolInfo[],
  cache: RankCache,
  project: string,
  ranking = lexicalRanking,
) {
  const lexical = await ranking(query.query, tools, cache);
  // As the service's lexical stage does, each sub-query's own order goes with a multi-step request.
  const bySubQuery =
    query.query.length > 1 ? rankToolsBySubQuery({ query: query.query, tools }, { cache }).bySubQuery : undefined;
  const plan = stage.plan({ query: query.query, tools, lexical, ...(bySubQuery ? { bySubQuery } : {}) }, project);
  const inPrompt = new Set(plan.candidates.map((candidate) => tools[candidate.toolIndex]!.toolKey));
  const lexicalTopK = new Set(lexical.slice(0, plan.candidates.length).map((ranked) => ranked.tool.toolKey));
  return {
    lexical,
    plan,
    extras: {
      'cand recall': recall(inPrompt, query.relevant),
      'lex@k recall': recall(lexicalTopK, query.relevant),
      cands: plan.candidates.length,
      'prompt tok': plan.promptTokens,
    },
  };
}

export function withPromptColumns(
  inner: RankerVariant,
  promptTokenBudget = DEFAULT_PROMPT_TOKEN_BUDGET,
  ranking = lexicalRanking,
): RankerVariant {
  const stage = createReranker({ model: 'eval', promptTokenBudget });
  let cache: RankCache = createRankCache();
  let project = '';
  return {
    name: inner.name,
    prepare: async (dataset: Dataset) => {
      await inner.prepare?.(dataset);
      cache = createRankCache();
      project = dataset.name;
    },
    async rank(query, tools): Promise<RankerOutput> {
      const output = await inner.rank(query, tools);
      const { extras } = await promptColumns(stage, query, tools, cache, project, ranking);
      return { ranked: output.ranked, extras: { ...output.extras, ...extras } };
    },
  };
}

interface LlmEvalOptions {
  baseURL: string;
  apiKey?: string;
  model: string;
  promptTokenBudget?: number;
  /** Per query; generous by default, since eval measures quality rather than the deadline. */
  deadlineMs: number;
}

function llmRanker(options: LlmEvalOptions): RankerVariant {
  // No answer cache: every query is a fresh model call.
  const stage = createReranker({
    baseURL: options.baseURL,
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    model: options.model,
    promptTokenBudget: options.promptTokenBudget ?? DEFAULT_PROMPT_TOKEN_BUDGET,
    cacheTtlMs: 0,
  });
  let cache: RankCache = createRankCache();
  let project = '';
  return {
    name: 'llm',
    prepare: (dataset: Dataset) => {
      cache = createRankCache();
      project = dataset.name;
    },
    async rank(query, tools): Promise<RankerOutput> {
      const { lexical, extras } = await promptColumns(stage, query, tools, cache, project);
      const outcome = await stage.rerank(
        { query: query.query, tools, lexical },
        { projectId: project, deadline: startDeadline(options.deadlineMs) },
      );
      return {
        ranked: outcome.ranked.map((ranked) => ranked.tool.toolKey),
        extras: {
          ...extras,
          // Share of queries the model fully answered, and what it cost.
          'llm ok': outcome.ranker === 'llm' && !outcome.degraded ? 1 : 0,
          'llm tok': outcome.stats?.usage?.totalTokens ?? 0,
          'model ms': outcome.stats?.modelMs ?? 0,
        },
      };
    },
  };
}

/** `--llm`: the endpoint from the same variables the service reads; a clear message when one is missing. */
export function llmRankerFromEnv(env: Readonly<Record<string, string | undefined>>): RankerVariant {
  const baseURL = env.LLM_BASE_URL?.trim();
  const model = env.LLM_MODEL?.trim();
  if (!baseURL || !model) {
    throw new Error(
      'npm run eval -- --llm needs LLM_BASE_URL and LLM_MODEL (and LLM_API_KEY if the endpoint wants one)',
    );
  }
  const budget = Number(env.LLM_PROMPT_TOKEN_BUDGET ?? DEFAULT_PROMPT_TOKEN_BUDGET);
  const deadlineMs = Number(env.LLM_EVAL_DEADLINE_MS ?? 30_000);
  const apiKey = env.LLM_API_KEY?.trim();
  return llmRanker({ baseURL, model, promptTokenBudget: budget, deadlineMs, ...(apiKey ? { apiKey } : {}) });
}
