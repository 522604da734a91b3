// A Japanese request's English index terms, and how its own terms group into the request's words
// ("units"), so that ranking can score a word once whether a tool matches it in Japanese (its character
// bigrams) or through a translation, and count coverage per word rather than per bigram.
//
// Units are the request's dictionary words that have English glosses, then one unit per other term of
// the request that means something alone (a Latin word such as "GitHub", bigrams of text the dictionary
// does not know). Bigrams across a word boundary ("に明" of "カレンダーに明日") and bigrams of kana
// only outside any word (endings, particles: "して") belong to no unit: they still score as today but
// neither count as words of the request nor lower its coverage. Each gloss term is a reading of its own
// (languages/query-readings.ts).
import type { QueryReadings } from '../languages/query-readings.js';
import type { Language } from '../languages/language.js';
import { loadedLanguageOf } from '../languages/registry.js';
import { CJK_CHAR, CJK_LETTER as CJK, NOT_ASCII } from '../languages/scripts.js';

/** The loaded language `text` (a sub-query) is written in, or undefined (languages/registry.ts). */
export function languageOf(text: string): Language | undefined {
  // Half-width katakana and full-width forms as the tokenizer folds them (NFKC).
  // An all-ASCII text is its own NFKC form: most requests need no normalizing.
  return loadedLanguageOf(NOT_ASCII.test(text) ? text.normalize('NFKC') : text);
}

/**
 * The cross-lingual terms of `text` (a sub-query in `language`), given its positive terms and the
 * tokenizer's `termsOf`; undefined when it has no word with an English gloss (nor, in a language read
 * without a dictionary, any word at all).
 */
export function crossLingualTerms(
  text: string,
  language: Language,
  positive: readonly string[],
  termsOf: (text: string) => string[],
): QueryReadings | undefined {
  text = text.normalize('NFKC');
  const found = language.words(text);
  // Terms of the words outside CJK scripts (a Latin-script language's): each word's terms are its unit.
  const latinUnit = new Map<string, number>();
  const own = new Set(positive);
  const words: string[] = [];
  const spans: { start: number; end: number }[] = [];
  const terms: string[] = [];
  const termWord: number[] = [];
  const termGloss: string[] = [];
  const seen = new Set<string>();
  for (const word of found) {
    const index = words.length;
    for (const gloss of word.glosses) {
      for (const term of termsOf(gloss)) {
        if (own.has(term) || seen.has(term) || /^[0-9]+$/.test(term)) continue;
        seen.add(term);
        terms.push(term);
        termWord.push(index);
        termGloss.push(gloss);
      }
    }
    // A word whose glosses are all stop words ("ください": "please") is no word of the request; in a
    // language read against the list's words (cognatesIn), every word it gives is one.
    if (termWord.at(-1) === index || language.cognatesIn !== undefined) {
      words.push(word.text);
      spans.push(word);
      if (!CJK.test(word.text)) for (const term of termsOf(word.text)) latinUnit.set(term, index);
    }
  }
  if (words.length === 0) return undefined;

  const unitOf = new Map<string, number>();
  // Each Japanese bigram (or lone character) of the text: inside a word, across a boundary, or alone.
  for (let i = 0; i < text.length; i += 1) {
    if (!CJK_CHAR.test(text[i]!)) continue;
    const pair = i + 1 < text.length && CJK_CHAR.test(text[i + 1]!);
    const alone = !pair && (i === 0 || !CJK_CHAR.test(text[i - 1]!));
    if (!pair && !alone) continue;
    const end = pair ? i + 2 : i + 1;
    const term = text.slice(i, end);
    const inside = spans.findIndex((span) => span.start <= i && end <= span.end);
    const overlaps = spans.some((span) => span.start < end && i < span.end);
    const unit = inside >= 0 ? inside : overlaps || language.carriesNoMeaning(term) ? -1 : -2;
    if (unitOf.get(term) === undefined || unitOf.get(term) === -1) unitOf.set(term, unit);
  }
  let unitCount = words.length;
  const unitOfTerm = new Int32Array(positive.length);
  for (let t = 0; t < positive.length; t += 1) {
    const term = positive[t]!;
    // Terms of Latin words are units of their own (or their word's); so are bigrams outside every word.
    const unit = CJK.test(term) ? (unitOf.get(term) ?? -1) : (latinUnit.get(term) ?? -2);
    unitOfTerm[t] = unit === -2 ? unitCount++ : unit;
  }
  return { words, terms, termWord, termGloss, unitOfTerm, unitCount };
}
