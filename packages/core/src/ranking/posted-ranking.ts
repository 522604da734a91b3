import type { ToolInfo } from '../schemas.js';
import { explainHits, type ExplainedQuery } from './explain.js';
import { LazyRankedTool, type RankingBySubQuery } from './rank.js';
import type { SubQueryResult } from './score-query.js';
import type { RankedTool } from './types.js';

/**
 * A ranking as plain data that another thread can post (structured clone), its explanations written
 * where they are read. A ranking made in a thread for a reranker, embeddings or learning holds every
 * matched tool (up to the whole list), of which the answer reads a few explanations; writing them all
 * in the thread and copying them back cost 2.5–18 ms there and ~400 KB of strings for 4,848 tools
 * (docs/performance.md#a-ranking-posted-from-the-thread).
 */
export interface PostedRanking {
  /** Per ranked tool, best first: its place in the list, score, relevance and the sub-query it ranks for. */
  index: Int32Array;
  score: Float64Array;
  relevance: Float64Array;
  subQuery: Int32Array;
  /** Per ranked tool: 1 when the request names it exactly, 2 when it names only its server (or both). */
  named: Uint8Array;
  /** Per ranked tool: its hits' codes, `hits[hitStarts[i] .. hitStarts[i + 1])`. */
  hitStarts: Int32Array;
  hits: Int32Array;
  /** Per sub-query: what its explanations are written from, and its label ("query 2") when there are several. */
  subQueries: { source: ExplainedQuery; label: string | undefined }[];
  bySubQuery: number[][];
}

const EXACT = 1;
const SERVER_ONLY = 2;

/** `ranking` (as core's rankTools made it) as data to post. */
export function postRanking(ranking: RankingBySubQuery): PostedRanking {
  const { ranked } = ranking;
  const count = ranked.length;
  const posted: PostedRanking = {
    index: new Int32Array(count),
    score: new Float64Array(count),
    relevance: new Float64Array(count),
    subQuery: new Int32Array(count),
    named: new Uint8Array(count),
    hitStarts: new Int32Array(count + 1),
    hits: new Int32Array(0),
    subQueries: [],
    bySubQuery: ranking.bySubQuery,
  };
  const subQueryOf = new Map<SubQueryResult, number>();
  const hits: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const tool = ranked[i]!;
    const source = LazyRankedTool.sourceOf(tool);
    if (source === undefined) throw new Error('postRanking takes a ranking made by core');
    const { result, label } = source;
    let subQuery = subQueryOf.get(result);
    if (subQuery === undefined) {
      subQuery = posted.subQueries.length;
      subQueryOf.set(result, subQuery);
      posted.subQueries.push({ source: explainedQuery(result), label });
    }
    posted.index[i] = tool.index;
    posted.score[i] = tool.score;
    posted.relevance[i] = tool.relevance;
    posted.subQuery[i] = subQuery;
    posted.named[i] =
      (result.exact.has(tool.index) ? EXACT : 0) | (result.serverOnly.has(tool.index) ? SERVER_ONLY : 0);
    for (const code of result.hits.of(tool.index)) hits.push(code);
    posted.hitStarts[i + 1] = hits.length;
  }
  posted.hits = Int32Array.from(hits);
  return posted;
}

/** A posted ranking over `tools` (the list it was made from), each explanation written when first read. */
export function receiveRanking(posted: PostedRanking, tools: readonly ToolInfo[]): RankingBySubQuery {
  const ranked = new Array<RankedTool>(posted.index.length);
  for (let i = 0; i < ranked.length; i += 1) ranked[i] = new ReceivedRankedTool(posted, i, tools[posted.index[i]!]!);
  return { ranked, bySubQuery: posted.bySubQuery };
}

/** Only what explanations read: the analysis also holds functions, which cannot be posted. */
function explainedQuery(result: SubQueryResult): ExplainedQuery {
  const { terms, negated, surface, crossLingual, readings } = result.query;
  return {
    query: {
      terms,
      negated,
      surface,
      ...(crossLingual ? { crossLingual } : {}),
      ...(readings
        ? {
            readings: {
              words: readings.words,
              termWord: readings.termWord,
              termGloss: readings.termGloss,
              unitOfTerm: readings.unitOfTerm,
            },
          }
        : {}),
    },
    termCount: result.termCount,
  };
}

/** A received ranked tool, as LazyRankedTool: its explanation is written on first read. */
class ReceivedRankedTool implements RankedTool {
  readonly #posted: PostedRanking;
  readonly #at: number;
  readonly index: number;
  score: number;
  relevance: number;
  #explanation: string | undefined;

  constructor(
    posted: PostedRanking,
    at: number,
    readonly tool: ToolInfo,
  ) {
    this.#posted = posted;
    this.#at = at;
    this.index = posted.index[at]!;
    this.score = posted.score[at]!;
    this.relevance = posted.relevance[at]!;
  }

  get explanation(): string {
    if (this.#explanation !== undefined) return this.#explanation;
    const posted = this.#posted;
    const at = this.#at;
    const { source, label } = posted.subQueries[posted.subQuery[at]!]!;
    const named = { exact: (posted.named[at]! & EXACT) !== 0, serverOnly: (posted.named[at]! & SERVER_ONLY) !== 0 };
    const hits = posted.hits.subarray(posted.hitStarts[at]!, posted.hitStarts[at + 1]!);
    return (this.#explanation = explainHits(source, hits, named, this.tool, label));
  }
}
