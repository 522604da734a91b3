import type { CrossLingualTerms } from '../text/cross-lingual.js';
import { termScore } from './bm25f.js';
import { calibrationIdf } from './calibrate.js';
import { FIELD_COUNT, FIELD_PARAMS, FIELDS } from './fields.js';
import type { TermMatches } from './term-matches.js';

const FIELD_QUALITY = FIELDS.map((field) => FIELD_PARAMS[field].quality);

// A match through a translation is weaker evidence than the request's own word: a dictionary gives
// several senses of a word, and a tool matching one of them may mean another. Its score counts this
// share of what the English word would add, and its coverage this share (docs/ranking.md).
const TRANSLATED_SCORE = 0.6;
const TRANSLATED_COVERAGE = 0.8;

/** What scoring a Japanese request needs beyond the matches: its terms' idf, and its words. */
interface CrossLingualScoring {
  cross: CrossLingualTerms;
  /** Positive and negated terms of the request (gloss terms follow them in the match indices). */
  positiveCount: number;
  negatedCount: number;
  idfs: Float64Array;
  calIdfs: Float64Array;
  docFreq: Int32Array;
  listSize: number;
  negationPenalty: number;
}

/**
 * BM25F scores, coverage and matched words for a Japanese request, word by word: each word of the
 * request (a unit, see cross-lingual.ts) adds once, the better of its own characters' match (summed
 * over its bigrams, as for any CJK text) and its best translation's match (weaker). Returns the
 * request's idf mass: per word, the idf of its most common rendering in this list (the rarest when
 * none occurs), so that a word with many senses does not weigh as its rarest gloss.
 */
export function scoreCrossLingual(
  matches: TermMatches,
  scoring: CrossLingualScoring,
  scores: Float64Array,
  coverage: Float64Array,
  matchedUnits: Uint16Array,
  hits: Map<number, number[]>,
): number {
  const { cross, positiveCount, negatedCount, idfs, calIdfs, docFreq, listSize, negationPenalty } = scoring;
  const units = cross.unitCount;
  const glossStart = positiveCount + negatedCount;
  const unitOf = (t: number): number =>
    t < positiveCount ? cross.unitOfTerm[t]! : t < glossStart ? -1 : cross.termWord[t - glossStart]!;

  const mass = new Float64Array(units).fill(Infinity);
  for (let t = 0; t < glossStart + cross.terms.length; t += 1) {
    const unit = unitOf(t);
    if (unit >= 0 && docFreq[t]! > 0) mass[unit] = Math.min(mass[unit]!, calIdfs[t]!);
  }
  const unmatched = calibrationIdf(0, listSize);
  let idfMass = 0;
  for (let u = 0; u < units; u += 1) {
    if (mass[u] === Infinity) mass[u] = unmatched;
    idfMass += mass[u]!;
  }

  const own = new Float64Array(units);
  const translated = new Float64Array(units);
  const ownCoverage = new Float64Array(units);
  const translatedCoverage = new Float64Array(units);
  const touched: number[] = [];
  let doc = -1;
  const flush = (): void => {
    for (const unit of touched) {
      scores[doc]! += Math.max(own[unit]!, translated[unit]!);
      coverage[doc]! += Math.max(ownCoverage[unit]!, translatedCoverage[unit]!);
      matchedUnits[doc]! += 1;
      own[unit] = translated[unit] = ownCoverage[unit] = translatedCoverage[unit] = 0;
    }
    touched.length = 0;
  };
  for (let m = 0; m < matches.count; m += 1) {
    if (matches.docs[m] !== doc) {
      if (doc >= 0) flush();
      doc = matches.docs[m]!;
    }
    const t = matches.terms[m]!;
    const field = matches.fields[m]!;
    const contribution = termScore(idfs[t]!, matches.weights[m]!);
    let list = hits.get(doc);
    if (list === undefined) hits.set(doc, (list = []));
    list.push(t * FIELD_COUNT + field);
    if (t >= positiveCount && t < glossStart) {
      scores[doc]! -= negationPenalty * contribution;
      continue;
    }
    const unit = unitOf(t);
    if (unit < 0) {
      scores[doc]! += contribution;
      continue;
    }
    if (own[unit] === 0 && translated[unit] === 0) touched.push(unit);
    const evidence = Math.min(calIdfs[t]!, mass[unit]!) * FIELD_QUALITY[field]!;
    if (t < positiveCount) {
      own[unit]! += contribution;
      ownCoverage[unit] = Math.max(ownCoverage[unit]!, evidence);
    } else {
      translated[unit] = Math.max(translated[unit]!, TRANSLATED_SCORE * contribution);
      translatedCoverage[unit] = Math.max(translatedCoverage[unit]!, TRANSLATED_COVERAGE * evidence);
    }
  }
  if (doc >= 0) flush();
  return idfMass;
}
