import type { SearchRequest, SearchResult, ToolInfo } from '../schemas.js';

/** What ranking needs from a request: the sub-queries and the tool list. */
export type RankInput = Pick<SearchRequest, 'query' | 'tools'> & { context?: string };

export interface RankOptions {
  /** How many ranked tools to return at most. Default: all tools that match. */
  limit?: number;
  /** Descriptions longer than this are truncated before ranking (not rejected). */
  maxDescriptionChars?: number;
}

export interface RankedTool {
  tool: ToolInfo;
  /** Position of the tool in the request's `tools`. */
  index: number;
  /** Raw score: comparable only within one request. */
  score: number;
  /** Calibrated relevance in [0, 1]: comparable across requests. */
  relevance: number;
  /** Short account of what matched, for an LLM or a person reading results. */
  explanation: string;
}

export type { SearchResult };
