// The rankers under evaluation. To add one (e.g. the LLM rerank stage), append a RankerVariant: it gets
// the request and the dataset's tool list and returns tool keys best first, plus optional extra numeric
// columns (e.g. candidate recall, prompt tokens) that run.ts averages and prints after the metrics.
import {
  createRankCache,
  rankTools,
  type RankCache,
  type RuleFamily,
  type ToolInfo,
} from '../packages/core/src/index.js';
import { rankOkapiBm25 } from './okapi-bm25.js';
import type { ItemToken } from 'wink-nlp';
import type { Dataset, EvalQuery } from './datasets.js';

export interface RankerOutput {
  ranked: string[];
  extras?: Record<string, number>;
}

export interface RankerVariant {
  name: string;
  /** Called once per dataset before its queries (build caches, warm up). */
  prepare?(dataset: Dataset): void | Promise<void>;
  rank(query: EvalQuery, tools: ToolInfo[]): RankerOutput | Promise<RankerOutput>;
}

const bm25Baseline: RankerVariant = {
  name: 'bm25',
  rank: (query, tools) => ({ ranked: rankOkapiBm25({ query: query.query, tools }).map((r) => r.tool.toolKey) }),
};

interface CoreRankerOptions {
  /** Rule families left out (`npm run eval -- --without`); undefined or empty: all apply. */
  without?: readonly RuleFamily[];
}

/** Our ranker, with a rank cache per dataset (as the service keeps one per project). */
function coreRanker({ without }: CoreRankerOptions = {}): RankerVariant {
  let cache: RankCache = createRankCache();
  const options = without && without.length > 0 ? { without } : {};
  return {
    name: 'ours',
    prepare: () => {
      cache = createRankCache();
    },
    rank: (query, tools) => ({
      ranked: rankTools({ query: query.query, tools }, { cache, ...options }).map((r) => r.tool.toolKey),
    }),
  };
}

/**
 * Our ranker with every rule family, beside an `ours` that leaves some out (`--without`): its NDCG@10
 * change against ours, with the paired interval, is what the families left out add.
 */
export function allRulesRanker(): RankerVariant {
  return { ...coreRanker(), name: 'all-on' };
}

/** The baseline first: relative changes are reported against it. */
export function defaultRankers(options: CoreRankerOptions = {}): RankerVariant[] {
  return [bm25Baseline, coreRanker(options)];
}

/**
 * Our ranker with wink-nlp on the query side: the query is read with wink-eng-lite-web-model and
 * rewritten as its lemmas (stop words dropped, negated words prefixed with "not") before ranking.
 * Kept in the harness as the measurement behind the decision not to use wink-nlp in core (README).
 */
export async function winkQueryRanker(): Promise<RankerVariant> {
  const { default: winkNLP } = await import('wink-nlp');
  const { default: model } = await import('wink-eng-lite-web-model');
  const nlp = winkNLP(model, ['pos', 'negation']);
  const its = nlp.its;
  let cache: RankCache = createRankCache();
  let readMs = 0;
  let reads = 0;
  const rewrite = (text: string): string => {
    const started = performance.now();
    const doc = nlp.readDoc(text);
    const words: string[] = [];
    doc.tokens().each((token: ItemToken) => {
      if (token.out(its.type) !== 'word' || token.out(its.stopWordFlag)) return;
      // wink's typings declare lemma with another signature than out() accepts; it works at run time.
      const lemma = token.out(its.lemma as unknown as typeof its.value);
      words.push(token.out(its.negationFlag) ? `not ${lemma}` : lemma);
    });
    readMs += performance.now() - started;
    reads += 1;
    return words.join(' ');
  };
  return {
    name: 'ours+wink',
    prepare: () => {
      cache = createRankCache();
    },
    rank: (query, tools) => {
      const rewritten = query.query.map(rewrite);
      const ranked = rankTools({ query: rewritten, tools }, { cache }).map((r) => r.tool.toolKey);
      return { ranked, extras: { 'wink ms': readMs / Math.max(reads, 1) } };
    },
  };
}
