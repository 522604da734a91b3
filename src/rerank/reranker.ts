// The LLM rerank stage's orchestration, independent of any web framework: given the request's tools and their
// lexical ranking, a project and a deadline, it returns the final ranking and says how it got it
// (`ranker`, `degraded`, token usage, cache). It never throws for model trouble and never waits past
// the deadline: whatever the model does, the caller gets an answer `reserveMs` before it.
import type { DegradedReason, RankedTool } from '@catalog-search/core';
import { LRUCache } from 'lru-cache';
import type { Reranker, RerankOptions, RerankOutcome, RerankRequest, RerankStats } from './stage.js';
import { createEndpointClient } from '../endpoint/openai-client.js';
import { MemoryBudget, type ProjectCache } from '../memory/exports.js';
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
  return new LlmStage(config);
}

/** A request's prompt, and what merging the model's grades into its ranking needs. */
interface PlannedRerank {
  prompt: PromptPlan;
  byId: Map<string, Candidate>;
  sizes: { candidates: number; promptTokens: number };
  /** The ranking with `grades` merged in (complete: every candidate was graded). */
  merged(grades: RawGrade[], complete: boolean): RankedTool[];
}

const NO_CALL = { cached: false, shared: false, candidates: 0, promptTokens: 0, modelMs: 0 };

function lexicalOutcome(
  lexical: RankedTool[],
  degraded: DegradedReason | undefined,
  stats: Partial<RerankStats> = {},
): RerankOutcome {
  return { ranked: lexical, ranker: 'bm25', ...(degraded ? { degraded } : {}), stats: { ...NO_CALL, ...stats } };
}

class LlmStage implements LlmReranker {
  readonly model: string;
  private readonly reserveMs: number;
  private readonly cacheTtlMs: number;
  private readonly minCallMs: number;
  private readonly client: ReturnType<typeof createEndpointClient>;
  private readonly modes = new OutputModeMemory();
  private readonly planPrompt: ReturnType<typeof createPromptPlanner>;
  private readonly answerCache: ProjectCache<CachedAnswer> | undefined;
  private readonly lineCache: ProjectCache<LineParts>;
  private readonly projects: LRUCache<string, ProjectState>;

  constructor(private readonly config: RerankerConfig) {
    this.model = config.model;
    this.reserveMs = config.reserveMs ?? 50;
    this.cacheTtlMs = config.cacheTtlMs ?? DEFAULT_CACHE_TTL_MS;
    this.minCallMs = config.minCallMs ?? 100;
    this.client = createEndpointClient({
      ...(config.baseURL ? { baseURL: config.baseURL } : {}),
      ...(config.apiKey ? { apiKey: config.apiKey } : {}),
      limits: ANSWER_BODY_LIMITS,
      ...(config.fetch ? { fetch: config.fetch } : {}),
    });
    this.planPrompt = createPromptPlanner({
      model: config.model,
      promptTokenBudget: config.promptTokenBudget ?? DEFAULT_PROMPT_TOKEN_BUDGET,
      candidates: { ...DEFAULT_CANDIDATE_OPTIONS, ...config.candidates },
    });
    const memory = config.memory ?? new MemoryBudget({ maxBytes: DEFAULT_STAGE_MEMORY_BYTES, projectShare: 0.25 });
    this.answerCache =
      this.cacheTtlMs > 0
        ? memory.cache<CachedAnswer>('llm-answers', {
            sizeOf: cachedAnswerBytes,
            ttlMs: this.cacheTtlMs,
            maxEntriesPerProject: config.cacheMaxEntries ?? 500,
          })
        : undefined;
    this.lineCache = memory.cache<LineParts>('candidate-lines', { sizeOf: linePartsBytes });
    this.projects = new LRUCache<string, ProjectState>({ max: config.maxProjects ?? 1_000 });
  }

  plan(request: RerankRequest, projectId: string): PromptPlan {
    return this.planPrompt(request, this.project(projectId).lineParts);
  }

  async rerank(request: RerankRequest, options: RerankOptions): Promise<RerankOutcome> {
    const { tools, lexical } = request;
    const { deadline } = options;
    if (tools.length === 0) return lexicalOutcome(lexical, undefined);
    const state = this.project(options.projectId);
    const planned = this.planned(request, state);
    const { prompt, sizes } = planned;
    // The queries and context alone fill the prompt budget: no candidate fits, so no call is made.
    if (prompt.candidates.length === 0) return lexicalOutcome(lexical, 'over_budget', sizes);
    const cached = await this.cachedGrades(state, options.projectId, prompt.key);
    if (cached)
      return { ranked: planned.merged(cached, true), ranker: 'llm', stats: { ...NO_CALL, cached: true, ...sizes } };
    if (deadline.signal.aborted || deadline.remainingMs() - this.reserveMs < this.minCallMs) {
      return lexicalOutcome(lexical, 'timeout', sizes);
    }
    const shared = state.flights.get(prompt.key) !== undefined;
    const flight = state.flights.get(prompt.key) ?? this.startCall(state, planned, options);
    const result = await participate(flight, deadline.signal, deadline.at - this.reserveMs);
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
      if (!result.failure) return { ranked: planned.merged([], true), ranker: 'llm', stats };
      return lexicalOutcome(lexical, result.failure, stats);
    }
    const complete = result.complete && !result.failure;
    const degraded = complete
      ? {}
      : { degraded: result.failure === 'answer_too_long' ? result.failure : ('partial' as const) };
    return { ranked: planned.merged(result.grades, complete), ranker: 'llm', ...degraded, stats };
  }

  /** What the stage keeps for a project, made on its first search. */
  private project(projectId: string): ProjectState {
    let state = this.projects.get(projectId);
    if (!state) {
      state = {
        answers: new AnswerCache(this.answerCache, projectId),
        lineParts: new LinePartsCache(this.lineCache, projectId),
        flights: new SingleFlights(),
      };
      this.projects.set(projectId, state);
    }
    return state;
  }

  private planned(request: RerankRequest, state: ProjectState): PlannedRerank {
    const { tools, lexical } = request;
    const prompt = this.planPrompt(request, state.lineParts);
    const byId = new Map(prompt.candidates.map((candidate) => [candidate.id, candidate]));
    const shown = new Set(prompt.candidates.map((candidate) => candidate.toolIndex));
    return {
      prompt,
      byId,
      sizes: { candidates: prompt.candidates.length, promptTokens: prompt.promptTokens },
      merged: (grades, complete) =>
        mergeRanking({ tools, lexical, grades: toCandidateGrades(grades, byId), shown, complete }),
    };
  }

  /**
   * The grades of an answer kept for this prompt: in this process, else (one bounded Redis read,
   * unless the call is already in flight here) from another replica, kept here too.
   */
  private async cachedGrades(state: ProjectState, projectId: string, key: string): Promise<RawGrade[] | undefined> {
    const hit = state.answers.get(key);
    if (hit) return hit;
    if (!this.config.sharedAnswers || this.cacheTtlMs <= 0 || state.flights.get(key)) return undefined;
    const sharedHit = await this.config.sharedAnswers.get(projectId, key);
    if (sharedHit) state.answers.set(key, sharedHit);
    return sharedHit;
  }

  /** Starts the model call for this prompt, which later identical requests join until it ends. */
  private startCall(state: ProjectState, planned: PlannedRerank, options: RerankOptions) {
    const { config } = this;
    const { prompt } = planned;
    const { deadline } = options;
    const call = {
      client: this.client,
      model: config.model,
      modes: this.modes,
      prompt,
      candidateIds: new Set(planned.byId.keys()),
      backstopAt: deadline.at,
      ...(options.headers ? { headers: options.headers } : {}),
      ...(config.onUpstreamFailure ? { onFailure: config.onUpstreamFailure } : {}),
    };
    const flight = state.flights.start(prompt.key, (started) => callForGrades(call, started), deadline.at);
    flight.done.then(
      // Only complete answers are kept: a cut or failed one would be repeated for as long as it lived.
      (result) => {
        if (!result.complete || result.failure) return;
        state.answers.set(prompt.key, result.grades);
        if (this.cacheTtlMs > 0)
          config.sharedAnswers?.set(options.projectId, prompt.key, result.grades, this.cacheTtlMs);
      },
      () => undefined, // the waiting requests see the rejection
    );
    return flight;
  }
}

function toCandidateGrades(grades: RawGrade[], byId: Map<string, Candidate>): CandidateGrade[] {
  const result: CandidateGrade[] = [];
  for (const grade of grades) {
    const candidate = byId.get(grade.id);
    if (candidate) result.push({ toolIndex: candidate.toolIndex, grade: grade.grade, why: grade.why });
  }
  return result;
}
