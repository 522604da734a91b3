import type { QueryReadings, ReadingRule } from '../languages/query-readings.js';
import { termScore } from './bm25f.js';
import { calibrationIdf } from './calibrate.js';
import { FIELD_COUNT, FIELD_PARAMS, FIELDS } from './fields.js';
import type { TermMatches } from './term-matches.js';
import type { ToolHits } from './tool-hits.js';

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
 * BM25F scores, coverage and matched words for a request with readings (languages/query-readings.ts), word by
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
  hits: ToolHits,
): ReadingsTotals {
  const { positiveCount, idfs, calIdfs, negationPenalty } = scoring;
  const terms = new ReadingTerms(scoring);
  const { readingStart } = terms;
  const { mass, totals } = unitMasses(terms, scoring);
  const sums = new UnitSums(terms, scores, coverage, matchedUnits, hits);
  // Per term, what the loop asks of every match of it: whether it counts and its unit.
  const termCount = readingStart + terms.readingTerms;
  const usable = new Uint8Array(termCount);
  const unitOf = new Int32Array(termCount);
  for (let t = 0; t < termCount; t += 1) {
    usable[t] = terms.usable(t) ? 1 : 0;
    unitOf[t] = terms.unitOf(t);
  }
  for (let m = 0; m < matches.count; m += 1) {
    const doc = matches.docs[m]!;
    sums.moveTo(doc);
    const t = matches.terms[m]!;
    if (usable[t] === 0) continue;
    const field = matches.fields[m]!;
    const contribution = termScore(idfs[t]!, matches.weights[m]!);
    hits.add(doc, t * FIELD_COUNT + field);
    if (t >= positiveCount && t < readingStart) {
      scores[doc]! -= negationPenalty * contribution;
      continue;
    }
    const unit = unitOf[t]!;
    if (unit < 0) {
      scores[doc]! += contribution;
      continue;
    }
    const evidence = Math.min(calIdfs[t]!, mass[unit]!) * FIELD_QUALITY[field]!;
    if (t < positiveCount) sums.addOwn(unit, contribution, evidence);
    else sums.addReading(unit, t - readingStart, contribution, evidence);
  }
  sums.moveTo(-1);
  return totals;
}

/**
 * The request's terms as scoring reads them: positive terms, then negated ones, then reading terms
 * (`readingStart` on); which word (unit) and reading each belongs to, and whether it counts.
 */
class ReadingTerms {
  readonly readingStart: number;
  readonly readingTerms: number;
  readonly units: number;
  /** Per unit: 1 when some tool of the list has the word as written (its fallback readings are not used). */
  private readonly ownFound: Uint8Array;

  constructor(readonly scoring: ReadingsScoring) {
    const { readings, positiveCount, negatedCount, docFreq } = scoring;
    this.readingStart = positiveCount + negatedCount;
    this.readingTerms = readings.terms.length;
    this.units = readings.unitCount;
    this.ownFound = new Uint8Array(this.units);
    for (let t = 0; t < positiveCount; t += 1) {
      const unit = readings.unitOfTerm[t]!;
      if (unit >= 0 && docFreq[t]! > 0 && readings.silent?.[t] !== 1) this.ownFound[unit] = 1;
    }
  }

  /** The reading of reading term `r` (counted from `readingStart`). */
  readingOf(r: number): number {
    const { termReading } = this.scoring.readings;
    return termReading ? termReading[r]! : r;
  }

  ruleOf(reading: number): ReadingRule {
    return this.scoring.readings.readings?.[reading] ?? TRANSLATION;
  }

  /** The unit of term `t`, or -1 for a negated term. */
  unitOf(t: number): number {
    const { readings, positiveCount } = this.scoring;
    if (t < positiveCount) return readings.unitOfTerm[t]!;
    return t < this.readingStart ? -1 : readings.termWord[t - this.readingStart]!;
  }

  /** False for a silent term (an idiom's word) and a fallback reading's term of a word the list has as written. */
  usable(t: number): boolean {
    if (t < this.scoring.positiveCount) return this.scoring.readings.silent?.[t] !== 1;
    return (
      t < this.readingStart ||
      !(this.ruleOf(this.readingOf(t - this.readingStart)).fallback && this.ownFound[this.unitOf(t)] === 1)
    );
  }
}

/** Per unit, the idf of its most common rendering in the list (`mass`), and the request's totals. */
function unitMasses(terms: ReadingTerms, scoring: ReadingsScoring): { mass: Float64Array; totals: ReadingsTotals } {
  const { readings, calIdfs, docFreq, listSize } = scoring;
  const mass = new Float64Array(terms.units).fill(Infinity);
  for (let t = 0; t < terms.readingStart + terms.readingTerms; t += 1) {
    const unit = terms.unitOf(t);
    if (unit >= 0 && docFreq[t]! > 0 && terms.usable(t)) mass[unit] = Math.min(mass[unit]!, calIdfs[t]!);
  }
  const unmatched = calibrationIdf(0, listSize);
  let idfMass = 0;
  let unitCount = 0;
  for (let u = 0; u < terms.units; u += 1) {
    if (mass[u] === Infinity) {
      if (readings.optional?.[u] === 1) continue;
      mass[u] = unmatched;
    }
    idfMass += mass[u]!;
    unitCount += 1;
  }
  return { mass, totals: { idfMass, unitCount } };
}

/**
 * One tool's sums per unit while its matches are read (they come grouped by tool): its own terms'
 * score and evidence, and per reading the same; `moveTo` adds the better of the two per unit to the
 * tool's score, coverage and matched units when the next tool starts.
 */
class UnitSums {
  private readonly own: Float64Array;
  private readonly alternative: Float64Array;
  private readonly ownCoverage: Float64Array;
  private readonly alternativeCoverage: Float64Array;
  private readonly readingScore: Float64Array;
  private readonly readingEvidence: Float64Array;
  /** Per reading: its unit (a reading's terms are all of one unit). */
  private readonly readingUnit: Int32Array;
  // The units, readings and reading terms the current tool touched, each with its count: typed arrays
  // with counters rather than arrays emptied with `length = 0`, which drops their storage and made every
  // tool allocate it again (docs/performance.md#the-readings-per-tool-lists).
  private readonly touched: Int32Array;
  private touchedCount = 0;
  private readonly isTouched: Uint8Array;
  private readonly touchedReadings: Int32Array;
  private touchedReadingCount = 0;
  /** Per reading: how many distinct terms it has, and how many of them the current tool matched. */
  private readonly readingTermCount: Int32Array;
  private readonly readingTermsMatched: Int32Array;
  /** Per reading term: 1 once the current tool matched it (in any field). */
  private readonly termSeen: Uint8Array;
  /** Per reading: 1 when the current tool matched only part of a phrase that counts whole. */
  private readonly droppedReading: Uint8Array;
  private readonly seenTerms: Int32Array;
  private seenTermCount = 0;
  private doc = -1;

  constructor(
    private readonly terms: ReadingTerms,
    private readonly scores: Float64Array,
    private readonly coverage: Float64Array,
    private readonly matchedUnits: Uint16Array,
    private readonly hits: ToolHits,
  ) {
    const { readings } = terms.scoring;
    const units = terms.units;
    const readingCount = readings.readings ? readings.readings.length : terms.readingTerms;
    this.own = new Float64Array(units);
    this.alternative = new Float64Array(units);
    this.ownCoverage = new Float64Array(units);
    this.alternativeCoverage = new Float64Array(units);
    this.readingScore = new Float64Array(readingCount);
    this.readingEvidence = new Float64Array(readingCount);
    this.readingUnit = new Int32Array(readingCount);
    this.readingTermCount = new Int32Array(readingCount);
    this.readingTermsMatched = new Int32Array(readingCount);
    this.termSeen = new Uint8Array(terms.readingTerms);
    this.droppedReading = new Uint8Array(readingCount);
    for (let r = 0; r < terms.readingTerms; r += 1) {
      this.readingUnit[terms.readingOf(r)] = readings.termWord[r]!;
      this.readingTermCount[terms.readingOf(r)]! += 1;
    }
    this.isTouched = new Uint8Array(units);
    this.touched = new Int32Array(units);
    this.touchedReadings = new Int32Array(readingCount);
    this.seenTerms = new Int32Array(terms.readingTerms);
  }

  /** Starts summing for `doc` (-1: none), after adding up the previous tool's. */
  moveTo(doc: number): void {
    if (doc === this.doc) return;
    if (this.doc >= 0) this.flush();
    this.doc = doc;
  }

  addOwn(unit: number, contribution: number, evidence: number): void {
    this.touch(unit);
    this.own[unit]! += contribution;
    this.ownCoverage[unit] = Math.max(this.ownCoverage[unit]!, evidence);
  }

  /** Adds reading term `r`'s match (r counted from the first reading term). */
  addReading(unit: number, r: number, contribution: number, evidence: number): void {
    const reading = this.terms.readingOf(r);
    this.touch(unit);
    if (this.termSeen[r] === 0) {
      this.termSeen[r] = 1;
      this.seenTerms[this.seenTermCount++] = r;
      this.readingTermsMatched[reading]! += 1;
    }
    if (this.readingScore[reading] === 0 && this.readingEvidence[reading] === 0)
      this.touchedReadings[this.touchedReadingCount++] = reading;
    this.readingScore[reading]! += contribution;
    this.readingEvidence[reading] = Math.max(this.readingEvidence[reading]!, evidence);
  }

  private touch(unit: number): void {
    if (this.isTouched[unit] === 0) {
      this.isTouched[unit] = 1;
      this.touched[this.touchedCount++] = unit;
    }
  }

  private flush(): void {
    const doc = this.doc;
    let dropped = false;
    for (let k = 0; k < this.touchedReadingCount; k += 1) {
      const reading = this.touchedReadings[k]!;
      const unit = this.readingUnit[reading]!;
      const rule = this.terms.ruleOf(reading);
      const partial = this.readingTermsMatched[reading]! < this.readingTermCount[reading]!;
      this.readingTermsMatched[reading] = 0;
      // A phrase ("web search" for "google") stands for the request's word only where all of it is.
      if (partial && rule.whole === true) {
        this.readingScore[reading] = this.readingEvidence[reading] = 0;
        this.droppedReading[reading] = 1;
        dropped = true;
        continue;
      }
      this.alternative[unit] = Math.max(this.alternative[unit]!, rule.score * this.readingScore[reading]!);
      this.alternativeCoverage[unit] = Math.max(
        this.alternativeCoverage[unit]!,
        rule.coverage * this.readingEvidence[reading]!,
      );
      this.readingScore[reading] = this.readingEvidence[reading] = 0;
    }
    if (dropped) this.forgetDropped(doc);
    for (let k = 0; k < this.seenTermCount; k += 1) this.termSeen[this.seenTerms[k]!] = 0;
    this.seenTermCount = 0;
    for (let k = 0; k < this.touchedReadingCount; k += 1) this.droppedReading[this.touchedReadings[k]!] = 0;
    this.touchedReadingCount = 0;
    for (let k = 0; k < this.touchedCount; k += 1) {
      const unit = this.touched[k]!;
      const score = Math.max(this.own[unit]!, this.alternative[unit]!);
      const evidence = Math.max(this.ownCoverage[unit]!, this.alternativeCoverage[unit]!);
      if (score > 0 || evidence > 0) {
        this.scores[doc]! += score;
        this.coverage[doc]! += evidence;
        this.matchedUnits[doc]! += 1;
      }
      this.own[unit] = this.alternative[unit] = this.ownCoverage[unit] = this.alternativeCoverage[unit] = 0;
      this.isTouched[unit] = 0;
    }
    this.touchedCount = 0;
  }

  /** Takes a dropped phrase's terms out of the tool's hits, so that its explanation does not name it. */
  private forgetDropped(doc: number): void {
    const { readingStart } = this.terms;
    this.hits.keepLast(doc, (hit) => {
      const t = Math.floor(hit / FIELD_COUNT);
      return t < readingStart || this.droppedReading[this.terms.readingOf(t - readingStart)] !== 1;
    });
  }
}
