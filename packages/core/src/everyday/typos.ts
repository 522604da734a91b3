import type { QueryReadings, ReadingRule } from '../languages/query-readings.js';
import { withinOneEdit } from '../languages/one-edit.js';

// A word one slip from a word of the list counts this share of it: likely what was meant, but not
// what was written (docs/ranking.md, "Everyday requests").
const TYPO: ReadingRule = { score: 0.8, coverage: 0.8, fallback: false };
// Shorter words are one edit from too many others ("cat": car, can, cap) to guess.
const MIN_TYPO_LENGTH = 5;
// At most this many of the list's words stand in for one mistyped word.
const MAX_GUESSES = 2;
const LETTERS = /^[a-z]+$/;

/** What guessing typos reads of a request: its own terms, how they were written, and which the list lacks. */
interface TypoInput {
  terms: readonly string[];
  /** Per term: the word it came from as written (lower-cased here). */
  surface: ReadonlyMap<string, string>;
  readings: QueryReadings | undefined;
  /** Per term (the request's own first): how many tools of the list have it. */
  docFreq: Int32Array;
  /** Terms already searched (own, negated, readings): a guess must be none of them. */
  searched: ReadonlySet<string>;
}

/**
 * A list's words one edit from a written word, remembered per list (ranking/score-query.ts keeps one per
 * prepared list): a router sends the same list with new requests, and an unknown word would otherwise
 * scan all of the list's terms again on every search (docs/performance.md, "Typo guesses").
 */
export interface TypoMemo {
  get(key: string): readonly string[] | undefined;
  set(key: string, candidates: readonly string[]): void;
}

// The first candidates a memo keeps for a word, before the request's own terms are taken out of them.
const REMEMBERED_CANDIDATES = 8;

/**
 * Readings for the request's words that no tool of the list has and that are one edit (an insertion,
 * a deletion, a substitution or two letters swapped) from a word the list has: "calender" reads as
 * calendar, "screensot" as screenshot. `listTerms` gives the list's distinct terms. Undefined when no
 * word needs or finds a guess.
 */
export function typoReadings(
  input: TypoInput,
  listTerms: () => Iterable<string>,
  memo?: TypoMemo,
): QueryReadings | undefined {
  const { terms, surface, docFreq, searched } = input;
  const guesses: { term: number; candidates: string[] }[] = [];
  let vocabulary: string[] | undefined;
  const list = () => (vocabulary ??= [...listTerms()]);
  for (let t = 0; t < terms.length; t += 1) {
    if (docFreq[t]! > 0) continue;
    const stem = terms[t]!;
    const written = (surface.get(stem) ?? stem).toLowerCase();
    if (written.length < MIN_TYPO_LENGTH || stem.length < MIN_TYPO_LENGTH || !LETTERS.test(written)) continue;
    const key = `${stem} ${written}`;
    let near = memo?.get(key);
    if (near === undefined) {
      near = nearTerms(stem, written, list(), new Set(), REMEMBERED_CANDIDATES);
      memo?.set(key, near);
    }
    let candidates = near.filter((term) => !searched.has(term)).slice(0, MAX_GUESSES);
    // The memo holds the first few: when the request's terms took out too many of them, scan again.
    if (candidates.length < MAX_GUESSES && near.length === REMEMBERED_CANDIDATES)
      candidates = nearTerms(stem, written, list(), searched, MAX_GUESSES);
    if (candidates.length > 0) guesses.push({ term: t, candidates });
  }
  if (guesses.length === 0) return undefined;
  const base = input.readings ?? termByTerm(terms, surface);
  const readings: QueryReadings = {
    ...base,
    words: [...base.words],
    terms: [...base.terms],
    termWord: [...base.termWord],
    termGloss: [...base.termGloss],
    termReading: Int32Array.from(base.termReading ?? base.terms.map((_, r) => r)),
    readings: [...(base.readings ?? base.terms.map(() => TRANSLATION_LIKE))],
  };
  const termReading = [...readings.termReading!];
  for (const { term, candidates } of guesses) {
    const unit = readings.unitOfTerm[term]!;
    if (unit < 0) continue;
    for (const candidate of candidates) {
      if (readings.terms.includes(candidate)) continue;
      readings.terms.push(candidate);
      readings.termWord.push(unit);
      readings.termGloss.push(candidate);
      termReading.push(readings.readings!.length);
      readings.readings!.push(TYPO);
    }
  }
  readings.termReading = Int32Array.from(termReading);
  return readings;
}

/** The first `max` of the list's terms one edit from the word (as stemmed or as written), in list order. */
function nearTerms(
  stem: string,
  written: string,
  listTerms: readonly string[],
  searched: ReadonlySet<string>,
  max: number,
): string[] {
  const candidates: string[] = [];
  for (const listTerm of listTerms) {
    if (listTerm.length < MIN_TYPO_LENGTH || searched.has(listTerm)) continue;
    if (withinOneEdit(stem, listTerm) || withinOneEdit(written, listTerm)) candidates.push(listTerm);
    if (candidates.length === max) break;
  }
  return candidates;
}

// A request scored word by word before (no readings) keeps the translation's rule nowhere: every
// reading here is a guess. Only used to fill the rule list of readings made before rules existed.
const TRANSLATION_LIKE: ReadingRule = { score: 0.6, coverage: 0.8, fallback: false };

/** Readings of a request with none: every term its own word. */
function termByTerm(terms: readonly string[], surface: ReadonlyMap<string, string>): QueryReadings {
  return {
    words: terms.map((term) => (surface.get(term) ?? term).toLowerCase()),
    terms: [],
    termWord: [],
    termGloss: [],
    unitOfTerm: Int32Array.from(terms, (_, t) => t),
    unitCount: terms.length,
  };
}
