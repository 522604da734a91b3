import type { RankCache, RankedTool, SearchRequest } from '@catalog-search/core';
import type { FastifyBaseLogger } from 'fastify';
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
}

export interface RerankInput {
  request: SearchRequest;
  /** Lexical candidates, best first. */
  candidates: RankedTool[];
  maxResults: number;
  projectId: string;
  requestId: string;
  log: FastifyBaseLogger;
  /** Aborts at the search deadline; pass it to every outbound call. */
  signal: AbortSignal;
  deadlineAt: number;
}

export type RerankOutcome =
  | { ranker: 'llm'; ranked: RankedTool[] }
  /** The stage did not (fully) run: the lexical ranking is answered, and `degraded` says why. */
  | { ranker: 'bm25'; degraded: string };

/**
 * The second stage of the pipeline (an LLM rerank, plugged in through `buildApp(config, { reranker })`).
 * It must resolve by the deadline; if it does not, the search answers with the lexical ranking.
 */
export interface Reranker {
  /** How many lexical candidates to hand to the reranker. */
  readonly candidateCount: number;
  rerank(input: RerankInput): Promise<RerankOutcome>;
}
