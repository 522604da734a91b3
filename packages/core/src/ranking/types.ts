import type { RuleFamily } from '../everyday/rule-families.js';
import type { ToolInfo } from '../schemas.js';
import type { CorpusCache } from './corpus.js';

/** What ranking needs from a request: the sub-queries and the (cleaned) tool list. */
export interface RankInput {
  query: string[];
  tools: ToolInfo[];
  context?: string;
}

export interface RankOptions {
  /** How many ranked tools to return at most. Default: all tools that match. */
  limit?: number;
  /** Descriptions longer than this are truncated before ranking (not rejected). */
  maxDescriptionChars?: number;
  /**
   * Cache of per-tool analyses (found by toolKey, used only when the tool's whole content is equal),
   * so a repeated tool list is not re-tokenized. The service keeps one per project so that nothing
   * crosses projects.
   */
  cache?: RankCache;
  /**
   * With a cache and the stepped ranking (rankToolsInSteps): also pause after analysing every this
   * many tools of a list new to the cache, so that a server can let other requests run while a long
   * new list is tokenized (5,000 new tools: ~1 s in one piece). Rankings are the same either way.
   */
  stepTools?: number;
  /**
   * Families of everyday-request rules to leave out, for measuring each one's effect (eval's
   * ablation rows). Default: every family applies. Not for production use.
   */
  without?: readonly RuleFamily[];
}

/**
 * Per-project cache of tool analyses and prepared lists; create with `createRankCache()`. Callers use
 * `size` and `clear()`; the CorpusCache methods are ranking's own.
 */
export interface RankCache extends CorpusCache {
  readonly size: number;
  /** Tools analysed so far (tokenized into term ids): a list seen before adds none, unless the cache's vocabulary was renewed. */
  readonly analysed: number;
  /**
   * Approximate bytes the cache holds (its tools' text, analyses and prepared lists), for a server
   * that accounts its caches in bytes. An estimate: strings count two bytes a character.
   */
  readonly bytes: number;
  clear(): void;
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
