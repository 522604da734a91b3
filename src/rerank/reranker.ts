// The LLM rerank stage's orchestration, independent of any web framework: given the request's tools and their
// lexical ranking, a project and a deadline, it returns the final ranking and says how it got it
// (`ranker`, `degraded`, token usage, cache). It never throws for model trouble and never waits past
// the deadline: whatever the model does, the caller gets an answer `reserveMs` before it.
import type { DegradedReason, RankedTool } from '@catalog-search/core';
import { LRUCache } from 'lru-cache';
import type { Reranker, RerankOptions, RerankOutcome, RerankRequest, RerankStats } from './stage.js';
import { createEndpointClient } from '../endpoint/openai-client.js';
import { MemoryBudget } from '../memory/exports.js';
import { AnswerCache, cachedAnswerBytes, type CachedAnswer } from './answer-cache.js';
import { ANSWER_BODY_LIMITS } from './answer-limits.js';
import { DEFAULT_CANDIDATE_OPTIONS, type Candidate, type CandidateOptions } from './candidates.js';
import { callForGrades, type UpstreamFailure } from './grade-call.js';
import type { RawGrade } from './grade-parser.js';
import { mergeRanking } from './merge-ranking.js';
import { OutputModeMemory } from './output-mode.js';
import { createPromptPlanner, type PromptPlan } from './prompt-plan.js';
import { participate, SingleFlights } from './single-flight.js';
import { LinePartsCache, linePartsBytes, loadTokenizer, type LineParts } from './token-count.js';
import type { CandidateGrade } from './types.js';

export interface RerankerConfig {
  /** OpenAI-compatible endpoint, e.g. `http://localhost:11434/v1`; the SDK's default when absent. */
  baseURL?: string;
  /** Sent as the bearer token; local endpoints usually need none. */
  apiKey?: string;
  model: string;
  /** Most tokens (o200k) the whole prompt may have. Default 7,000. */
  promptTokenBudget?: number;
  /** How long an answer stays in the per-project cache. Default 10 minutes; 0 turns the cache off. */
  cacheTtlMs?: number;
  /** Answers kept per project (the oldest written go first). Default 500. */
  cacheMaxEntries?: number;
  /** Projects whose in-flight model calls are tracked for sharing (answers live in the memory budget). Default 1,000. */
  maxProjects?: number;
  /** Time kept back before the deadline to merge and send the answer (also under load). Default 50 ms. */
  reserveMs?: number;
  /** A call is not started with less time than this left: it could not finish. Default 100 ms. */
  minCallMs?: number;
  /** Tuning of candidate selection (see candidates.ts). */
  candidates?: Partial<CandidateOptions>;
  /**
   * The service's cache budget: the stage keeps its answers ('llm-answers') and candidate lines
   * ('candidate-lines') in it. Default: a budget of its own (DEFAULT_STAGE_MEMORY_BYTES).
   */
  memory?: MemoryBudget;
  /** For tests and proxies: the fetch the SDK uses. */
  fetch?: typeof fetch;
  /**
   * A second answer cache shared by all replicas (Redis), read after a miss in this process and
   * written with every complete answer. Its reads must resolve quickly, failures as `undefined`.
   */
  sharedAnswers?: SharedAnswerCache;
  /** Called once per failed model call, with its cause (for logs). */
  onUpstreamFailure?: (failure: UpstreamFailure) => void;
}

export interface SharedAnswerCache {
  get(projectId: string, key: string): Promise<RawGrade[] | undefined>;
  set(projectId: string, key: string, grades: RawGrade[], ttlMs: number): void;
}

export const DEFAULT_PROMPT_TOKEN_BUDGET = 7_000;
const DEFAULT_CACHE_TTL_MS = 10 * 60_000;
/** The stage's own cache budget when it is given none (eval, benchmarks, tests). */
const DEFAULT_STAGE_MEMORY_BYTES = 64 * 1024 * 1024;

/** The LLM stage: the pipeline's `Reranker`, and a look at the prompt it would send. */
export interface LlmReranker extends Reranker {
  readonly model: string;
  /** The prompt the stage would send, without sending it (eval: candidate recall, prompt size). */
  plan(request: RerankRequest, projectId: string): PromptPlan;
}

/** What the stage keeps per project (the tenant boundary): answers, candidate lines, calls in flight. */
interface ProjectState {
  answers: AnswerCache;
  lineParts: LinePartsCache;
  flights: SingleFlights;
}

export function createReranker(config: RerankerConfig): LlmReranker {
  // The tokenizer's tables now, at start, rather than inside the first search's deadline (token-count.ts).
  loadTokenizer();
  const reserveMs = config.reserveMs ?? 50;
  const cacheTtlMs = config.cacheTtlMs ?? DEFAULT_CACHE_TTL_MS;
  const minCallMs = config.minCallMs ?? 100;
  const client = createEndpointClient({
    ...(config.baseURL ? { baseURL: config.baseURL } : {}),
    ...(config.apiKey ? { apiKey: config.apiKey } : {}),
    limits: ANSWER_BODY_LIMITS,
    ...(config.fetch ? { fetch: config.fetch } : {}),
  });
  const modes = new OutputModeMemory();
  const planPrompt = createPromptPlanner({
    model: config.model,
    promptTokenBudget: config.promptTokenBudget ?? DEFAULT_PROMPT_TOKEN_BUDGET,
    candidates: { ...DEFAULT_CANDIDATE_OPTIONS, ...config.candidates },
  });

  const memory = config.memory ?? new MemoryBudget({ maxBytes: DEFAULT_STAGE_MEMORY_BYTES, projectShare: 0.25 });
  const answerCache =
    cacheTtlMs > 0
      ? memory.cache<CachedAnswer>('llm-answers', {
          sizeOf: cachedAnswerBytes,
          ttlMs: cacheTtlMs,
          maxEntriesPerProject: config.cacheMaxEntries ?? 500,
        })
      : undefined;
  const lineCache = memory.cache<LineParts>('candidate-lines', { sizeOf: linePartsBytes });
  const projects = new LRUCache<string, ProjectState>({ max: config.maxProjects ?? 1_000 });
  const project = (projectId: string): ProjectState => {
    let state = projects.get(projectId);
    if (!state) {
      state = {
        answers: new AnswerCache(answerCache, projectId),
        lineParts: new LinePartsCache(lineCache, projectId),
        flights: new SingleFlights(),
      };
      projects.set(projectId, state);
    }
    return state;
  };

  async function rerank(request: RerankRequest, options: RerankOptions): Promise<RerankOutcome> {
    const { tools, lexical } = request;
    const { deadline } = options;
    const noCall = { cached: false, shared: false, candidates: 0, promptTokens: 0, modelMs: 0 };
    const lexicalOutcome = (degraded: DegradedReason | undefined, stats: Partial<RerankStats> = {}): RerankOutcome => ({
      ranked: lexical,
      ranker: 'bm25',
      ...(degraded ? { degraded } : {}),
      stats: { ...noCall, ...stats },
    });
    if (tools.length === 0) return lexicalOutcome(undefined);

    const state = project(options.projectId);
    const prompt = planPrompt(request, state.lineParts);
    const byId = new Map(prompt.candidates.map((candidate) => [candidate.id, candidate]));
    const shown = new Set(prompt.candidates.map((candidate) => candidate.toolIndex));
    const sizes = { candidates: prompt.candidates.length, promptTokens: prompt.promptTokens };
    const merged = (grades: RawGrade[], complete: boolean): RankedTool[] =>
      mergeRanking({ tools, lexical, grades: toCandidateGrades(grades, byId), shown, complete });

    if (prompt.candidates.length === 0) {
      // The queries and context alone fill the prompt budget: no candidate fits, so no call is made.
      return lexicalOutcome('over_budget', sizes);
    }
    const hit = state.answers.get(prompt.key);
    if (hit) return { ranked: merged(hit, true), ranker: 'llm', stats: { ...noCall, cached: true, ...sizes } };
    // Another replica may have answered it: one bounded Redis read, unless the call is already in flight here.
    if (config.sharedAnswers && cacheTtlMs > 0 && !state.flights.get(prompt.key)) {
      const sharedHit = await config.sharedAnswers.get(options.projectId, prompt.key);
      if (sharedHit) {
        state.answers.set(prompt.key, sharedHit);
        return { ranked: merged(sharedHit, true), ranker: 'llm', stats: { ...noCall, cached: true, ...sizes } };
      }
    }
    if (deadline.signal.aborted || deadline.remainingMs() - reserveMs < minCallMs) {
      return lexicalOutcome('timeout', sizes);
    }

    let flight = state.flights.get(prompt.key);
    const shared = flight !== undefined;
    if (!flight) {
      const call = {
        client,
        model: config.model,
        modes,
        prompt,
        candidateIds: new Set(byId.keys()),
        backstopAt: deadline.at,
        ...(options.headers ? { headers: options.headers } : {}),
        ...(config.onUpstreamFailure ? { onFailure: config.onUpstreamFailure } : {}),
      };
      flight = state.flights.start(prompt.key, (started) => callForGrades(call, started), deadline.at);
      flight.done.then(
        // Only complete answers are kept: a cut or failed one would be repeated for as long as it lived.
        (result) => {
          if (!result.complete || result.failure) return;
          state.answers.set(prompt.key, result.grades);
          if (cacheTtlMs > 0) config.sharedAnswers?.set(options.projectId, prompt.key, result.grades, cacheTtlMs);
        },
        () => undefined, // the waiting requests see the rejection
      );
    }
    const result = await participate(flight, deadline.signal, deadline.at - reserveMs);

    const usage = shared ? undefined : result.usage;
    const stats: RerankStats = {
      cached: false,
      shared,
      modelMs: result.modelMs,
      ...(usage ? { usage } : {}),
      ...sizes,
    };
    if (result.grades.length === 0) {
      // Nothing usable arrived. A complete, well-formed "no tool helps" answer is still the model's answer.
      if (!result.failure) return { ranked: merged([], true), ranker: 'llm', stats };
      return lexicalOutcome(result.failure, stats);
    }
    const complete = result.complete && !result.failure;
    const degraded = complete
      ? {}
      : { degraded: result.failure === 'answer_too_long' ? result.failure : ('partial' as const) };
    return { ranked: merged(result.grades, complete), ranker: 'llm', ...degraded, stats };
  }

  return {
    model: config.model,
    rerank,
    plan: (request, projectId) => planPrompt(request, project(projectId).lineParts),
  };
}

function toCandidateGrades(grades: RawGrade[], byId: Map<string, Candidate>): CandidateGrade[] {
  const result: CandidateGrade[] = [];
  for (const grade of grades) {
    const candidate = byId.get(grade.id);
    if (candidate) result.push({ toolIndex: candidate.toolIndex, grade: grade.grade, why: grade.why });
  }
  return result;
}
