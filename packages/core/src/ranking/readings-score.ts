import type { QueryReadings, ReadingRule } from '../text/query-readings.js';
import { termScore } from './bm25f.js';
import { calibrationIdf } from './calibrate.js';
import { FIELD_COUNT, FIELD_PARAMS, FIELDS } from './fields.js';
import type { TermMatches } from './term-matches.js';

const FIELD_QUALITY = FIELDS.map((field) => FIELD_PARAMS[field].quality);

// A match through a translation is weaker evidence than the request's own word: a dictionary gives
// several senses of a word, and a tool matching one of them may mean another. Its score counts this
// share of what the English word would add, and its coverage this share (docs/ranking.md).
const TRANSLATION: ReadingRule = { score: 0.6, coverage: 0.8, fallback: false };

/** What scoring a request with readings needs beyond the matches: its terms' idf, and its words. */
interface ReadingsScoring {
  readings: QueryReadings;
  /** Positive and negated terms of the request (reading terms follow them in the match indices). */
  positiveCount: number;
  negatedCount: number;
  idfs: Float64Array;
  calIdfs: Float64Array;
  docFreq: Int32Array;
  listSize: number;
  negationPenalty: number;
}

/** The request's idf mass and how many of its words count (an optional word the list lacks does not). */
interface ReadingsTotals {
  idfMass: number;
  unitCount: number;
}

/**
 * BM25F scores, coverage and matched words for a request with readings (query-readings.ts), word by
 * word: each word (unit) adds once, the better of its own terms' match (summed, as the bigrams of a
 * Japanese word) and its best reading's (weaker, by the reading's rule). A product name's parts count
 * only where no tool has the whole. The idf mass counts per word the idf of its most common rendering in
 * this list (the rarest when none occurs), so that a word with many senses does not weigh as its rarest.
 */
export function scoreReadings(
  matches: TermMatches,
  scoring: ReadingsScoring,
  scores: Float64Array,
  coverage: Float64Array,
  matchedUnits: Uint16Array,
  hits: Map<number, number[]>,
): ReadingsTotals {
  const { readings, positiveCount, negatedCount, idfs, calIdfs, docFreq, listSize, negationPenalty } = scoring;
  const units = readings.unitCount;
  const readingStart = positiveCount + negatedCount;
  const readingTerms = readings.terms.length;
  const readingOf = (r: number): number => (readings.termReading ? readings.termReading[r]! : r);
  const ruleOf = (reading: number): ReadingRule => readings.readings?.[reading] ?? TRANSLATION;
  const unitOf = (t: number): number =>
    t < positiveCount ? readings.unitOfTerm[t]! : t < readingStart ? -1 : readings.termWord[t - readingStart]!;

  // Words some tool of the list has as written: their fallback readings are not used.
  const ownFound = new Uint8Array(units);
  for (let t = 0; t < positiveCount; t += 1) {
    const unit = readings.unitOfTerm[t]!;
    if (unit >= 0 && docFreq[t]! > 0) ownFound[unit] = 1;
  }
  const usable = (t: number): boolean =>
    t < readingStart || !(ruleOf(readingOf(t - readingStart)).fallback && ownFound[unitOf(t)] === 1);

  const mass = new Float64Array(units).fill(Infinity);
  for (let t = 0; t < readingStart + readingTerms; t += 1) {
    const unit = unitOf(t);
    if (unit >= 0 && docFreq[t]! > 0 && usable(t)) mass[unit] = Math.min(mass[unit]!, calIdfs[t]!);
  }
  const unmatched = calibrationIdf(0, listSize);
  let idfMass = 0;
  let unitCount = 0;
  for (let u = 0; u < units; u += 1) {
    if (mass[u] === Infinity) {
      if (readings.optional?.[u] === 1) continue;
      mass[u] = unmatched;
    }
    idfMass += mass[u]!;
    unitCount += 1;
  }

  const readingCount = readings.readings ? readings.readings.length : readingTerms;
  const own = new Float64Array(units);
  const alternative = new Float64Array(units);
  const ownCoverage = new Float64Array(units);
  const alternativeCoverage = new Float64Array(units);
  const readingScore = new Float64Array(readingCount);
  const readingEvidence = new Float64Array(readingCount);
  // Per reading: its unit (a reading's terms are all of one unit).
  const readingUnit = new Int32Array(readingCount);
  for (let r = 0; r < readingTerms; r += 1) readingUnit[readingOf(r)] = readings.termWord[r]!;
  const touched: number[] = [];
  const isTouched = new Uint8Array(units);
  const touchedReadings: number[] = [];
  let doc = -1;
  const flush = (): void => {
    for (const reading of touchedReadings) {
      const unit = readingUnit[reading]!;
      const rule = ruleOf(reading);
      alternative[unit] = Math.max(alternative[unit]!, rule.score * readingScore[reading]!);
      alternativeCoverage[unit] = Math.max(alternativeCoverage[unit]!, rule.coverage * readingEvidence[reading]!);
      readingScore[reading] = readingEvidence[reading] = 0;
    }
    touchedReadings.length = 0;
    for (const unit of touched) {
      scores[doc]! += Math.max(own[unit]!, alternative[unit]!);
      coverage[doc]! += Math.max(ownCoverage[unit]!, alternativeCoverage[unit]!);
      matchedUnits[doc]! += 1;
      own[unit] = alternative[unit] = ownCoverage[unit] = alternativeCoverage[unit] = 0;
      isTouched[unit] = 0;
    }
    touched.length = 0;
  };

  for (let m = 0; m < matches.count; m += 1) {
    if (matches.docs[m] !== doc) {
      if (doc >= 0) flush();
      doc = matches.docs[m]!;
    }
    const t = matches.terms[m]!;
    if (!usable(t)) continue;
    const field = matches.fields[m]!;
    const contribution = termScore(idfs[t]!, matches.weights[m]!);
    let list = hits.get(doc);
    if (list === undefined) hits.set(doc, (list = []));
    list.push(t * FIELD_COUNT + field);
    if (t >= positiveCount && t < readingStart) {
      scores[doc]! -= negationPenalty * contribution;
      continue;
    }
    const unit = unitOf(t);
    if (unit < 0) {
      scores[doc]! += contribution;
      continue;
    }
    if (isTouched[unit] === 0) {
      isTouched[unit] = 1;
      touched.push(unit);
    }
    const evidence = Math.min(calIdfs[t]!, mass[unit]!) * FIELD_QUALITY[field]!;
    if (t < positiveCount) {
      own[unit]! += contribution;
      ownCoverage[unit] = Math.max(ownCoverage[unit]!, evidence);
    } else {
      const reading = readingOf(t - readingStart);
      if (readingScore[reading] === 0 && readingEvidence[reading] === 0) touchedReadings.push(reading);
      readingScore[reading]! += contribution;
      readingEvidence[reading] = Math.max(readingEvidence[reading]!, evidence);
    }
  }
  if (doc >= 0) flush();
  return { idfMass, unitCount };
}
