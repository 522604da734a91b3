import type { RankCache, RankedTool, SearchRequest } from '@catalog-search/core';
import type { FastifyBaseLogger } from 'fastify';
import type { SemanticStage } from '../semantic/semantic-stage.js';
import type { Deadline } from './deadline.js';

/** Everything a search needs besides the request body; built per request by the route. */
export interface SearchContext {
  projectId: string;
  requestId: string;
  log: FastifyBaseLogger;
  /** This project's rank cache (never shared across projects). */
  rankCache: RankCache;
  deadline: Deadline;
  maxDescriptionChars: number;
  reranker?: Reranker | undefined;
  /** The embedding stage (src/semantic); undefined when EMBEDDINGS=off. */
  semantic?: SemanticStage | undefined;
}

export interface RerankInput {
  request: SearchRequest;
  /** Lexical candidates, best first (all matching tools when `candidateCount` is Infinity). */
  candidates: RankedTool[];
  /** This project's rank cache, for rankings the reranker makes itself (per sub-query). */
  rankCache: RankCache;
  maxResults: number;
  projectId: string;
  requestId: string;
  log: FastifyBaseLogger;
  /** Aborts at the search deadline; pass it to every outbound call. */
  signal: AbortSignal;
  deadlineAt: number;
}

/** What the rerank call cost and saw, for the audit log. */
export interface RerankStats {
  /** Tokens the model call used; absent when none was made for this request (cache, shared call). */
  usage?: { promptTokens: number; completionTokens: number; totalTokens: number };
  cached: boolean;
  shared: boolean;
  /** Candidates in the prompt and the prompt's size in tokens. */
  candidates: number;
  promptTokens: number;
  modelMs: number;
}

export type RerankOutcome =
  /** `degraded: "partial"`: the answer was cut; the grades that arrived are used, the rest is lexical. */
  | { ranker: 'llm'; ranked: RankedTool[]; degraded?: 'partial'; stats?: RerankStats }
  /** The stage did not (fully) run: the lexical ranking is answered, and `degraded` says why. */
  | { ranker: 'bm25'; degraded: string; stats?: RerankStats };

/**
 * The second stage of the pipeline (an LLM rerank, plugged in through `buildApp(config, { reranker })`).
 * It must resolve by the deadline; if it does not, the search answers with the lexical ranking.
 */
export interface Reranker {
  /** How many lexical candidates to hand to the reranker (Infinity: every matching tool). */
  readonly candidateCount: number;
  rerank(input: RerankInput): Promise<RerankOutcome>;
}
