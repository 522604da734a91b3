// The LLM rerank stage, independent of any web framework: given the request's tools and their
// lexical ranking, a project and a deadline, it returns the final ranking and says how it got it
// (`ranker`, `degraded`, token usage, cache). It never throws for model trouble and never waits past
// the deadline: whatever the model does, the caller gets an answer `reserveMs` before it.
import { createHash } from 'node:crypto';
import OpenAI from 'openai';
import { LRUCache } from 'lru-cache';
import type { RankCache, RankedTool } from '@catalog-search/core';
import { DEFAULT_CANDIDATE_OPTIONS, selectCandidates, type Candidate, type CandidateOptions } from './candidates.js';
import { GradeStreamParser, isEmptyAnswer, type RawGrade } from './grade-parser.js';
import { classifyFailure, NEXT_MODE, streamAnswer, type OutputMode } from './llm-call.js';
import { mergeRanking } from './merge-ranking.js';
import { buildMessages, promptHeader, SYSTEM_PROMPT, type PromptMessage } from './prompt.js';
import { countTextTokens, LinePartsCache, MESSAGE_OVERHEAD_TOKENS } from './token-count.js';
import type { CandidateGrade, DegradedReason, RerankInput, RerankOutcome, RerankRequestOptions, TokenUsage } from './types.js';

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
  /** Answers kept per project (least recently used go first). Default 500. */
  cacheMaxEntries?: number;
  /** Projects whose caches are kept. Default 1,000. */
  maxProjects?: number;
  /** Time kept back before the deadline to merge and send the answer (also under load). Default 50 ms. */
  reserveMs?: number;
  /** A call is not started with less time than this left: it could not finish. Default 100 ms. */
  minCallMs?: number;
  /** Tuning of candidate selection (see candidates.ts). */
  candidates?: Partial<CandidateOptions>;
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

/** Why a model call failed, as far as the SDK tells: HTTP status, error code, or the network cause. */
export interface UpstreamFailure {
  reason: DegradedReason;
  status?: number;
  code?: string;
  message: string;
}

export const DEFAULT_PROMPT_TOKEN_BUDGET = 7_000;
export const DEFAULT_CACHE_TTL_MS = 10 * 60_000;

export interface RerankRequest extends RerankInput {
  /**
   * How many results the caller will show: the ranking is cut there, and the model is asked for at
   * most this many (10–30). Default: the whole ranking, 20 asked for.
   */
  maxResults?: number;
  /** The project's lexical rank cache, reused for per-sub-query rankings. */
  rankCache?: RankCache;
}

export interface PromptPlan {
  candidates: Candidate[];
  messages: PromptMessage[];
  /** Prompt size in o200k tokens, counted on the final messages. */
  promptTokens: number;
  /** Every tool of the request is a candidate. */
  whole: boolean;
  key: string;
}

export interface Reranker {
  readonly model: string;
  rerank(request: RerankRequest, options: RerankRequestOptions): Promise<RerankOutcome>;
  /** The prompt the stage would send, without sending it (eval: candidate recall, prompt size). */
  plan(request: RerankRequest, projectId: string): PromptPlan;
}

interface CachedAnswer {
  grades: RawGrade[];
}

interface FlightResult {
  grades: RawGrade[];
  complete: boolean;
  failure?: DegradedReason;
  usage?: TokenUsage;
  modelMs: number;
}

/** One model call that identical concurrent requests share. */
interface Flight {
  /** Valid grades received so far, in the model's order. */
  grades: RawGrade[];
  controller: AbortController;
  participants: number;
  done: Promise<FlightResult>;
}

interface ProjectState {
  answers: LRUCache<string, CachedAnswer> | undefined;
  lineParts: LinePartsCache;
  flights: Map<string, Flight>;
}

export function createReranker(config: RerankerConfig): Reranker {
  const budget = config.promptTokenBudget ?? DEFAULT_PROMPT_TOKEN_BUDGET;
  const ttl = config.cacheTtlMs ?? DEFAULT_CACHE_TTL_MS;
  const reserveMs = config.reserveMs ?? 50;
  const minCallMs = config.minCallMs ?? 100;
  const candidateOptions: CandidateOptions = { ...DEFAULT_CANDIDATE_OPTIONS, ...config.candidates };
  const client = new OpenAI({
    apiKey: config.apiKey || 'unused',
    ...(config.baseURL ? { baseURL: config.baseURL } : {}),
    maxRetries: 0,
    ...(config.fetch ? { fetch: config.fetch } : {}),
  });
  // Endpoints that refused json_schema (or json mode) are asked with the next mode from then on.
  let mode: OutputMode = 'json_schema';
  let includeUsage = true;

  const projects = new LRUCache<string, ProjectState>({ max: config.maxProjects ?? 1_000 });
  const project = (projectId: string): ProjectState => {
    let state = projects.get(projectId);
    if (!state) {
      state = {
        answers: ttl > 0 ? new LRUCache({ max: config.cacheMaxEntries ?? 500, ttl }) : undefined,
        lineParts: new LinePartsCache(),
        flights: new Map(),
      };
      projects.set(projectId, state);
    }
    return state;
  };

  const systemTokens = countTextTokens(SYSTEM_PROMPT) + 2 * MESSAGE_OVERHEAD_TOKENS + 3;

  function plan(request: RerankRequest, projectId: string): PromptPlan {
    const state = project(projectId);
    const maxResults = Math.min(30, Math.max(10, request.maxResults ?? 20));
    const parts = { query: request.query, ...(request.context ? { context: request.context } : {}), maxResults };
    // Room for the fixed text around the candidate lines (section tags, closing instruction).
    const frame = 40;
    const available = budget - systemTokens - countTextTokens(promptHeader(parts)) - frame;
    const selection = selectCandidates(request, Math.max(0, available), state.lineParts, candidateOptions, request.rankCache);
    const messages = buildMessages(parts, selection.candidates);
    const promptTokens =
      messages.reduce((sum, message) => sum + MESSAGE_OVERHEAD_TOKENS + countTextTokensFast(message, selection), 0) + 3;
    const key = createHash('sha256')
      .update(config.model)
      .update('\0')
      .update(JSON.stringify(messages))
      .digest('base64url');
    return { candidates: selection.candidates, messages, promptTokens, whole: selection.whole, key };
  }

  async function rerank(request: RerankRequest, options: RerankRequestOptions): Promise<RerankOutcome> {
    const { tools, lexical } = request;
    const lexicalOutcome = (degraded: DegradedReason | undefined, extra: Partial<RerankOutcome> = {}): RerankOutcome => ({
      ranked: request.maxResults === undefined ? lexical : lexical.slice(0, request.maxResults),
      ranker: 'bm25',
      ...(degraded ? { degraded } : {}),
      cached: false,
      shared: false,
      candidates: 0,
      promptTokens: 0,
      modelMs: 0,
      ...extra,
    });
    if (tools.length === 0) return lexicalOutcome(undefined);

    const state = project(options.projectId);
    const prompt = plan(request, options.projectId);
    const byId = new Map(prompt.candidates.map((candidate) => [candidate.id, candidate]));
    const shown = new Set(prompt.candidates.map((candidate) => candidate.toolIndex));
    const sizes = { candidates: prompt.candidates.length, promptTokens: prompt.promptTokens };
    const merged = (grades: RawGrade[], complete: boolean): RankedTool[] =>
      mergeRanking({
        tools,
        lexical,
        grades: toCandidateGrades(grades, byId),
        shown,
        complete,
        ...(request.maxResults === undefined ? {} : { limit: request.maxResults }),
      });

    const hit = state.answers?.get(prompt.key);
    if (prompt.candidates.length === 0) {
      // The queries and context alone fill the prompt budget: no candidate fits, so no call is made.
      return lexicalOutcome('over_budget', sizes);
    }
    if (hit) {
      return { ranked: merged(hit.grades, true), ranker: 'llm', cached: true, shared: false, modelMs: 0, ...sizes };
    }
    // Another replica may have answered it: one bounded Redis read, unless the call is already in flight here.
    if (state.answers && config.sharedAnswers && !state.flights.has(prompt.key)) {
      const sharedHit = await config.sharedAnswers.get(options.projectId, prompt.key);
      if (sharedHit) {
        state.answers.set(prompt.key, { grades: sharedHit });
        return { ranked: merged(sharedHit, true), ranker: 'llm', cached: true, shared: false, modelMs: 0, ...sizes };
      }
    }
    if (options.signal.aborted || options.deadline - reserveMs - performance.now() < minCallMs) {
      return lexicalOutcome('timeout', sizes);
    }

    let flight = state.flights.get(prompt.key);
    const shared = flight !== undefined;
    if (!flight) {
      flight = startFlight(state, prompt, byId, options);
    }
    const result = await participate(flight, options.signal, options.deadline - reserveMs);

    const usage = shared ? undefined : result.usage;
    const base = { cached: false, shared, modelMs: result.modelMs, ...(usage ? { usage } : {}), ...sizes };
    if (result.grades.length === 0) {
      // Nothing usable arrived. A complete, well-formed "no tool helps" answer is still the model's answer.
      if (!result.failure) return { ranked: merged([], true), ranker: 'llm', ...base };
      return { ...lexicalOutcome(result.failure), ...base };
    }
    const complete = result.complete && !result.failure;
    return {
      ranked: merged(result.grades, complete),
      ranker: 'llm',
      ...(complete ? {} : { degraded: 'partial' as const }),
      ...base,
    };
  }

  function startFlight(state: ProjectState, prompt: PromptPlan, byId: Map<string, Candidate>, options: RerankRequestOptions): Flight {
    const deadline = options.deadline - reserveMs;
    const controller = new AbortController();
    const flight: Flight = { grades: [], controller, participants: 0, done: Promise.resolve(undefined as never) };
    // Backstop only: the waiting requests stop waiting at `deadline` and abort the call once the last
    // has gone; this fires at the request's own deadline in case none is left to do it.
    const timer = setTimeout(() => controller.abort(), Math.max(0, deadline + reserveMs - performance.now()));
    flight.done = callModel(flight, prompt, byId, deadline, options.headers).finally(() => {
      clearTimeout(timer);
      state.flights.delete(prompt.key);
    });
    state.flights.set(prompt.key, flight);
    flight.done.then(
      (result) => {
        if (result.complete && !result.failure && state.answers) {
          state.answers.set(prompt.key, { grades: result.grades });
          config.sharedAnswers?.set(options.projectId, prompt.key, result.grades, ttl);
        }
      },
      () => undefined, // the waiting requests see the rejection
    );
    return flight;
  }

  async function callModel(
    flight: Flight,
    prompt: PromptPlan,
    byId: Map<string, Candidate>,
    deadline: number,
    headers: Record<string, string> | undefined,
  ): Promise<FlightResult> {
    const started = performance.now();
    const seen = new Set<string>();
    const accept = (grade: RawGrade) => {
      if (!byId.has(grade.id) || seen.has(grade.id)) return; // not a candidate, or said twice
      seen.add(grade.id);
      flight.grades.push(grade);
    };
    for (;;) {
      const attemptMode = mode;
      const attemptUsage = includeUsage;
      const parser = new GradeStreamParser();
      try {
        const answer = await streamAnswer(
          client,
          {
            model: config.model,
            messages: prompt.messages,
            mode: attemptMode,
            includeUsage: attemptUsage,
            signal: flight.controller.signal,
            timeoutMs: deadline + reserveMs - performance.now(), // backstop, as above
            ...(headers ? { headers } : {}),
          },
          (delta) => parser.push(delta).forEach(accept),
        );
        const usage = answer.usage ?? {
          promptTokens: prompt.promptTokens,
          completionTokens: countTextTokens(answer.text),
          totalTokens: prompt.promptTokens + countTextTokens(answer.text),
        };
        const modelMs = performance.now() - started;
        // The SDK ends an aborted or dropped stream quietly: without a finish_reason the answer is
        // incomplete (and "length" means the token limit cut it).
        const cutBy: DegradedReason | undefined = flight.controller.signal.aborted
          ? 'timeout'
          : answer.finishReason === undefined || answer.finishReason === 'length'
            ? 'upstream_error'
            : undefined;
        if (cutBy === 'upstream_error') {
          config.onUpstreamFailure?.({ reason: cutBy, message: `the answer stream ended without a finish (finish_reason ${answer.finishReason ?? 'absent'})` });
        }
        if (cutBy) {
          return { grades: flight.grades, complete: false, failure: flight.grades.length > 0 ? 'partial' : cutBy, usage, modelMs };
        }
        if (flight.grades.length === 0 && !isEmptyAnswer(answer.text)) {
          return { grades: [], complete: true, failure: 'invalid_output', usage, modelMs };
        }
        return { grades: flight.grades, complete: true, usage, modelMs };
      } catch (error) {
        const failure = classifyFailure(error, flight.controller.signal.aborted, { mode: attemptMode, includeUsage: attemptUsage });
        const next = NEXT_MODE[attemptMode];
        if (failure === 'stream_options_rejected' && flight.grades.length === 0) {
          includeUsage = false;
          continue;
        }
        if (failure === 'format_rejected' && next && flight.grades.length === 0) {
          if (mode === attemptMode) mode = next;
          continue;
        }
        const modelMs = performance.now() - started;
        const reason: DegradedReason =
          failure === 'format_rejected' || failure === 'stream_options_rejected' ? 'upstream_error' : failure;
        if (!flight.controller.signal.aborted) config.onUpstreamFailure?.(describeFailure(reason, error));
        return { grades: flight.grades, complete: false, failure: flight.grades.length > 0 ? 'partial' : reason, modelMs };
      }
    }
  }

  /** Waits for the shared call, but never past this request's own deadline or abort. */
  async function participate(flight: Flight, signal: AbortSignal, deadline: number): Promise<FlightResult> {
    flight.participants += 1;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    const cut = new Promise<'cut'>((resolve) => {
      timer = setTimeout(() => resolve('cut'), Math.max(0, deadline - performance.now()));
      onAbort = () => resolve('cut');
      signal.addEventListener('abort', onAbort, { once: true });
    });
    const started = performance.now();
    try {
      const winner = await Promise.race([flight.done, cut]);
      if (winner !== 'cut') return winner;
      const grades = [...flight.grades];
      return { grades, complete: false, failure: grades.length > 0 ? 'partial' : 'timeout', modelMs: performance.now() - started };
    } finally {
      clearTimeout(timer);
      if (onAbort) signal.removeEventListener('abort', onAbort);
      flight.participants -= 1;
      // Nobody is waiting any more (all deadlines passed or callers gone): stop paying for tokens.
      // Deferred: tearing down the connection costs time that belongs to no one's answer, so the
      // answers (promise continuations) go out first.
      if (flight.participants === 0) setImmediate(() => flight.participants === 0 && flight.controller.abort());
    }
  }

  return { model: config.model, rerank, plan };
}

/** The status, code and network cause of a failed call (openai's errors keep the fetch error as `cause`). */
function describeFailure(reason: DegradedReason, error: unknown): UpstreamFailure {
  const failure: UpstreamFailure = { reason, message: error instanceof Error ? error.message : String(error) };
  const status = (error as { status?: unknown }).status;
  if (typeof status === 'number') failure.status = status;
  // The innermost code: ENOTFOUND (DNS), ECONNREFUSED (connect), ETIMEDOUT, UND_ERR_SOCKET…, or the API's error code.
  for (let at: unknown = error; at !== null && typeof at === 'object'; at = (at as { cause?: unknown }).cause) {
    const code = (at as { code?: unknown }).code;
    if (typeof code === 'string') failure.code = code;
  }
  return failure;
}

function toCandidateGrades(grades: RawGrade[], byId: Map<string, Candidate>): CandidateGrade[] {
  const result: CandidateGrade[] = [];
  for (const grade of grades) {
    const candidate = byId.get(grade.id);
    if (candidate) result.push({ toolIndex: candidate.toolIndex, grade: grade.grade, why: grade.why });
  }
  return result;
}

/** Token count of a message: candidate lines are already counted (memoised), the rest is counted here. */
const systemPromptTokens = new Map<string, number>();

function countTextTokensFast(message: PromptMessage, selection: { candidates: Candidate[] }): number {
  if (message.role === 'system') {
    // One system prompt per maxResults value: count each once.
    let tokens = systemPromptTokens.get(message.content);
    if (tokens === undefined) {
      tokens = countTextTokens(message.content);
      if (systemPromptTokens.size < 64) systemPromptTokens.set(message.content, tokens);
    }
    return tokens;
  }
  let rest = message.content;
  let lineTokens = 0;
  for (const candidate of selection.candidates) lineTokens += candidate.tokens;
  const start = rest.indexOf('<tool_data>\n');
  const end = rest.lastIndexOf('\n</tool_data>');
  if (start >= 0 && end > start) rest = rest.slice(0, start + 12) + rest.slice(end);
  return countTextTokens(rest) + lineTokens;
}
