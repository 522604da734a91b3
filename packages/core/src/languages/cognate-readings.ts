import type { QueryReadings, ReadingRule } from './query-readings.js';
import type { Language } from './language.js';

// A loanword or cognate of the list's word counts as a dictionary's translation does
// (ranking/readings-score.ts): likely what is meant, but read, not written.
const COGNATE: ReadingRule = { score: 0.6, coverage: 0.8, fallback: false };

/** What reading a request's words against the list needs, besides the list's terms. */
interface CognateInput {
  language: Language;
  readings: QueryReadings;
  /** Per term (the request's own, its negated, then its reading terms): how many tools of the list have it. */
  docFreq: Int32Array;
  positiveCount: number;
  negatedCount: number;
  /** Terms already searched: a cognate must be none of them. */
  searched: ReadonlySet<string>;
  stem: (word: string) => string;
}

/**
 * Readings for the words of a request in a language read without a dictionary (`cognatesIn`) that no
 * tool of the list has, neither as written nor through a gloss: the list's own words they are loanwords
 * or cognates of ("calendario" → calendar, "캘린더" → calendar). Undefined when none is found.
 */
export function cognateReadings(input: CognateInput, listTerms: () => Iterable<string>): QueryReadings | undefined {
  const { language, readings, docFreq, positiveCount, negatedCount, searched, stem } = input;
  if (language.cognatesIn === undefined) return undefined;
  const found = new Uint8Array(readings.words.length);
  for (let t = 0; t < positiveCount; t += 1) {
    const unit = readings.unitOfTerm[t]!;
    if (unit >= 0 && unit < found.length && docFreq[t]! > 0) found[unit] = 1;
  }
  for (let r = 0; r < readings.terms.length; r += 1)
    if (docFreq[positiveCount + negatedCount + r]! > 0) found[readings.termWord[r]!] = 1;
  let vocabulary: string[] | undefined;
  const added: { unit: number; term: string }[] = [];
  for (let unit = 0; unit < found.length; unit += 1) {
    if (found[unit] === 1) continue;
    vocabulary ??= [...listTerms()];
    for (const term of language.cognatesIn(readings.words[unit]!, vocabulary, stem))
      if (!searched.has(term) && !added.some((other) => other.term === term)) added.push({ unit, term });
  }
  if (added.length === 0) return undefined;
  const count = readings.terms.length;
  const termReading = Int32Array.from({ length: count + added.length }, (_, r) =>
    r < count ? (readings.termReading?.[r] ?? r) : (readings.readings?.length ?? count) + r - count,
  );
  const rules = readings.readings ?? readings.terms.map(() => COGNATE);
  return {
    ...readings,
    terms: [...readings.terms, ...added.map((cognate) => cognate.term)],
    termWord: [...readings.termWord, ...added.map((cognate) => cognate.unit)],
    termGloss: [...readings.termGloss, ...added.map((cognate) => cognate.term)],
    termReading,
    readings: [...rules, ...added.map(() => COGNATE)],
  };
}
