import { analyzeQuery, type QueryTerms } from '../text/tokenize.js';
import { calibrationIdf, EXACT_RELEVANCE, relevanceFromCoverage } from './calibrate.js';
import type { Corpus } from './corpus.js';
import { FIELD_COUNT, FIELD_PARAMS, FIELDS, K1 } from './fields.js';
import { normalizeName } from './tool-analysis.js';

/** One sub-query scored against the whole list. */
export interface SubQueryResult {
  readonly query: QueryTerms;
  /** Indices of the tools that matched, best first. */
  readonly order: number[];
  readonly scores: Float64Array;
  readonly relevance: Float64Array;
  /** Per matched tool: which query term hit which field (`termIndex * FIELD_COUNT + field`, best field). */
  readonly hits: Map<number, number[]>;
  /** Tools the query names exactly. */
  readonly exact: Set<number>;
}

// A tool that matches a negated term loses this share of what that term would have added.
const NEGATION_PENALTY = 0.5;
// Extra weight for matching more of the query's distinct terms (BM25 alone lets one rare word win).
const COORDINATION = 0.35;

const FIELD_WEIGHTS = FIELDS.map((field) => FIELD_PARAMS[field].weight);
const FIELD_B = FIELDS.map((field) => FIELD_PARAMS[field].b);
const FIELD_QUALITY = FIELDS.map((field) => FIELD_PARAMS[field].quality);

export function scoreSubQuery(corpus: Corpus, text: string): SubQueryResult {
  const { analyses, avgLengths } = corpus;
  const n = analyses.length;
  const query = analyzeQuery(text);
  const scores = new Float64Array(n);
  const coverage = new Float64Array(n);
  const matchedTerms = new Uint16Array(n);
  const hits = new Map<number, number[]>();
  const allTerms = [...query.terms, ...query.negated];

  let idfMass = 0;
  for (let t = 0; t < allTerms.length; t += 1) {
    const term = allTerms[t]!;
    const negated = t >= query.terms.length;
    let docFreq = 0;
    for (let i = 0; i < n; i += 1) if (analyses[i]!.terms.has(term)) docFreq += 1;
    const calIdf = calibrationIdf(docFreq, n);
    if (!negated) idfMass += calIdf;
    if (docFreq === 0) continue;
    const idf = Math.log(1 + (n - docFreq + 0.5) / (docFreq + 0.5));
    for (let i = 0; i < n; i += 1) {
      const tf = analyses[i]!.terms.get(term);
      if (tf === undefined) continue;
      const lengths = analyses[i]!.lengths;
      let weighted = 0;
      let bestField = 0;
      let bestQuality = 0;
      for (let f = 0; f < FIELD_COUNT; f += 1) {
        const count = tf[f]!;
        if (count === 0) continue;
        const avg = avgLengths[f]! || 1;
        weighted += (FIELD_WEIGHTS[f]! * count) / (1 - FIELD_B[f]! + (FIELD_B[f]! * lengths[f]!) / avg);
        if (FIELD_QUALITY[f]! > bestQuality) {
          bestQuality = FIELD_QUALITY[f]!;
          bestField = f;
        }
      }
      const contribution = (idf * weighted * (K1 + 1)) / (K1 + weighted);
      let list = hits.get(i);
      if (list === undefined) hits.set(i, (list = []));
      list.push(t * FIELD_COUNT + bestField);
      if (negated) {
        scores[i]! -= NEGATION_PENALTY * contribution;
      } else {
        scores[i]! += contribution;
        coverage[i]! += calIdf * bestQuality;
        matchedTerms[i]! += 1;
      }
    }
  }

  const exact = findExactNames(corpus, text);
  const relevance = new Float64Array(n);
  const order: number[] = [];
  const termCount = Math.max(query.terms.length, 1);
  for (const i of hits.keys()) {
    if (matchedTerms[i]! > 0) scores[i]! *= 1 + COORDINATION * (matchedTerms[i]! / termCount);
    relevance[i] = relevanceFromCoverage(idfMass > 0 ? coverage[i]! / idfMass : 0);
    if (scores[i]! > 0 || exact.has(i)) order.push(i);
  }
  for (const i of exact) {
    relevance[i] = Math.max(relevance[i]!, EXACT_RELEVANCE);
    if (!hits.has(i)) order.push(i);
  }
  order.sort((a, b) => Number(exact.has(b)) - Number(exact.has(a)) || scores[b]! - scores[a]! || a - b);
  return { query, order, scores, relevance, hits, exact };
}

// Words that look like identifiers: snake/kebab/dotted/colon names or inner capitals (getFileContents).
const IDENTIFIER_LIKE = /[\p{L}\p{N}][_\-.:/][\p{L}\p{N}]|\p{Ll}\p{Lu}/u;

/** Tools whose own name the query spells out: the whole sub-query, or one identifier-like word in it. */
function findExactNames(corpus: Corpus, text: string): Set<number> {
  const wanted = new Set<string>();
  const whole = normalizeName(text);
  if (whole.length >= 3) wanted.add(whole);
  for (const word of text.split(/[\s,;()[\]{}"'`<>]+/)) {
    const trimmed = word.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
    if (trimmed.length >= 3 && IDENTIFIER_LIKE.test(trimmed)) wanted.add(normalizeName(trimmed));
  }
  const exact = new Set<number>();
  const { analyses } = corpus;
  for (let i = 0; i < analyses.length; i += 1) {
    for (const key of analyses[i]!.nameKeys) if (wanted.has(key)) exact.add(i);
  }
  return exact;
}
