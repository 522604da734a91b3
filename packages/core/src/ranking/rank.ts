import { capRelevanceColumn } from './calibrate.js';
import { analyseInSteps, buildCorpus } from './corpus.js';
import { explainMatch } from './explain.js';
import { fuseSubQueries } from './fuse.js';
import { favourNamedPlatforms } from './named-platform.js';
import { scoreSubQuery, type SubQueryResult } from './score-query.js';
import type { ToolInfo } from '../schemas.js';
import { codePointPrefix, RANKED_QUERY_CHARS } from '../text/text-length.js';
import type { RankedTool, RankInput, RankOptions } from './types.js';

/**
 * The lexical ranker shared by the service's BM25 stage and the client's local fallback:
 * identifier-aware BM25F over the tool's fields, per-sub-query ranking fused across sub-queries,
 * an exact-name short-circuit, calibrated relevance and an explanation per tool.
 *
 * Returns, best first, at most `limit` tools (default or Infinity: all with score > 0): first every
 * tool that matches a query term or is named exactly, then, far below them (score ≈ 2 % of their
 * server's best, relevance 0), the other tools of servers that matched, since a task's steps often
 * use several tools of one server. Tools of servers with no match at all are left out: there is no
 * evidence to rank them by; a caller that needs the whole list appends them in list order. `context` is
 * not scored as words of the request (it would pull in tools for the background rather than for the
 * request); it only says which platform the request means (named-platform.ts).
 */
export function rankTools(input: RankInput, options: RankOptions = {}): RankedTool[] {
  const steps = rankToolsInSteps(input, options);
  let step = steps.next();
  while (!step.done) step = steps.next();
  return step.value;
}

/**
 * rankTools as a generator that pauses after preparing the list and after each sub-query, so that a
 * server can let other requests run between the steps of a large ranking (which would otherwise hold a
 * thread in one piece: docs/performance.md#no-search-stalls-another). If its corpus's vocabulary was
 * renewed while it was paused (another search of the same project filled it), its term ids no longer
 * hold: it starts again and finishes without pausing.
 */
export function* rankToolsInSteps(input: RankInput, options: RankOptions = {}): Generator<void, RankedTool[], void> {
  return (yield* rankInSteps(input, options, false)).ranked;
}

/** A ranking and, per non-blank sub-query, that sub-query's own ranking (tool indices, best first). */
export interface RankingBySubQuery {
  ranked: RankedTool[];
  bySubQuery: number[][];
}

/**
 * rankTools that also gives each sub-query's own order, from the same scores: the LLM stage
 * fills its prompt with the best tools of every step of a task (src/rerank/candidates.ts), and with
 * these it need not rank each sub-query again.
 */
export function rankToolsBySubQuery(input: RankInput, options: RankOptions = {}): RankingBySubQuery {
  const steps = rankInSteps(input, options, true);
  let step = steps.next();
  while (!step.done) step = steps.next();
  return step.value;
}

/** rankToolsBySubQuery in steps (see rankToolsInSteps); without `bySubQuery` its `bySubQuery` is empty. */
export function* rankToolsBySubQueryInSteps(
  input: RankInput,
  options: RankOptions = {},
  bySubQuery = true,
): Generator<void, RankingBySubQuery, void> {
  return yield* rankInSteps(input, options, bySubQuery);
}

function* rankInSteps(
  input: RankInput,
  options: RankOptions,
  bySubQuery: boolean,
): Generator<void, RankingBySubQuery, void> {
  const { tools } = input;
  // Ranking reads a bounded prefix of each sub-query (tasks may be tens of thousands of characters).
  const queries = input.query
    .filter((q) => typeof q === 'string' && q.trim() !== '')
    .map((q) => codePointPrefix(q, RANKED_QUERY_CHARS));
  if (tools.length === 0 || queries.length === 0) return { ranked: [], bySubQuery: [] };
  // The vocabulary is renewed once per list: by analyseInSteps when it ran, else by buildCorpus.
  const inSteps = options.cache !== undefined && options.stepTools !== undefined;
  if (inSteps) yield* analyseInSteps(tools, options.cache!, options.stepTools!, options.maxDescriptionChars);
  const corpus = buildCorpus(tools, options.cache, options.maxDescriptionChars, !inSteps);
  const results: SubQueryResult[] = [];
  for (const query of queries) {
    yield;
    if (corpus.epoch !== corpus.vocabulary.epoch) {
      const again = rankInSteps(input, options, bySubQuery);
      let step = again.next();
      while (!step.done) step = again.next();
      return step.value;
    }
    results.push(scoreSubQuery(corpus, query, { tools, without: options.without }));
  }
  const fused = fuseSubQueries(results);
  favourNamedPlatforms(corpus, fused, input.context);
  capRelevanceColumn(fused.relevance);
  const limit = options.limit === undefined || Number.isNaN(options.limit) ? fused.length : Math.max(0, options.limit);
  const ranked = new Array<RankedTool>(Math.min(limit, fused.length));
  for (let i = 0; i < ranked.length; i += 1) {
    const index = fused.index[i]!;
    const subQuery = fused.subQuery[i]!;
    ranked[i] = new LazyRankedTool(
      tools[index]!,
      index,
      fused.score[i]!,
      fused.relevance[i]!,
      results[subQuery]!,
      results.length > 1 ? `query ${subQuery + 1}` : undefined,
    );
  }
  return { ranked, bySubQuery: bySubQuery ? results.map((result) => ownOrder(corpus, result, input.context)) : [] };
}

/** One sub-query ranked on its own, as rankTools would rank it alone (the platform a context names first). */
function ownOrder(
  corpus: ReturnType<typeof buildCorpus>,
  result: SubQueryResult,
  context: string | undefined,
): number[] {
  const own = fuseSubQueries([result]);
  favourNamedPlatforms(corpus, own, context);
  return Array.from(own.index);
}

/**
 * A ranked tool whose explanation is written on first read: a caller taking hundreds of candidates
 * reads few of them. A class rather than an object literal with a getter: the literal made a closure
 * and an accessor per result, several times the size of the result itself.
 */
export class LazyRankedTool implements RankedTool {
  readonly #subQuery: SubQueryResult;
  readonly #label: string | undefined;
  #explanation: string | undefined;

  constructor(
    readonly tool: ToolInfo,
    readonly index: number,
    public score: number,
    public relevance: number,
    subQuery: SubQueryResult,
    label: string | undefined,
  ) {
    this.#subQuery = subQuery;
    this.#label = label;
  }

  get explanation(): string {
    return (this.#explanation ??= explainMatch(this.#subQuery, this.index, this.tool, this.#label));
  }

  /** What `ranked`'s explanation is written from (a ranking posted to another thread: posted-ranking.ts). */
  static sourceOf(ranked: RankedTool): { result: SubQueryResult; label: string | undefined } | undefined {
    return ranked instanceof LazyRankedTool ? { result: ranked.#subQuery, label: ranked.#label } : undefined;
  }
}
