import { buildCorpus } from './corpus.js';
import { explainMatch } from './explain.js';
import { fuseSubQueries } from './fuse.js';
import { scoreSubQuery } from './score-query.js';
import type { RankedTool, RankInput, RankOptions } from './types.js';

/**
 * The lexical ranker shared by the service's BM25 stage and the client's local fallback:
 * identifier-aware BM25F over the tool's fields, per-sub-query ranking fused across sub-queries,
 * an exact-name short-circuit, calibrated relevance and an explanation per tool.
 *
 * Returns the tools that match at least one query term (or are named exactly), best first, at most
 * `limit` of them (default: all). Tools with no lexical match are left out: they have no evidence
 * to rank by, and a caller that wants the whole list can append the rest in list order.
 * `context` is background for the LLM stage and is not scored: it would pull in tools for the
 * background rather than for the request.
 */
export function rankTools(input: RankInput, options: RankOptions = {}): RankedTool[] {
  const { tools } = input;
  const queries = input.query.filter((q) => typeof q === 'string' && q.trim() !== '');
  if (tools.length === 0 || queries.length === 0) return [];
  const corpus = buildCorpus(tools, options.cache, options.maxDescriptionChars);
  const results = queries.map((q) => scoreSubQuery(corpus, q));
  const fused = fuseSubQueries(results);
  const limit = options.limit === undefined || Number.isNaN(options.limit) ? fused.length : Math.max(0, options.limit);
  return fused.slice(0, limit).map(({ index, score, relevance, subQuery }) => {
    const tool = tools[index]!;
    const label = results.length > 1 ? `query ${subQuery + 1}` : undefined;
    return { tool, index, score, relevance, explanation: explainMatch(results[subQuery]!, index, tool.toolName, label) };
  });
}
