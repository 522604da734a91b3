import { withinOneEdit } from './one-edit.js';
import type { Language, LanguageWord } from './language.js';
import { MARKERS, type LatinCode } from './latin-markers.js';

/**
 * What German, French, Spanish, Portuguese and Italian share (each folder gives its word lists and
 * endings): no open bilingual dictionary without a copyleft licence was found for them in npm or Debian
 * (FreeDict's and Ding's are GPL), so a request is read without one:
 * - its filler words (articles, prepositions, pronouns, politeness: the registry's markers and the
 *   folder's own) are no words of the request: they never match and never count;
 * - accents are folded by the tokenizer ("calendário" → calendario), and a hyphenated pair is also the
 *   closed word ("E-Mail" → email), as English's is;
 * - its other words are matched to the list's own English words where they are loanwords or cognates
 *   (`cognatesIn`: calendario → calendar, Tabelle → table, requête → request), by the language's
 *   ending correspondences and a small edit distance, never by a word list.
 * A multilingual embeddings endpoint or the LLM stage reads the rest (docs/ranking.md).
 */
interface LatinSpec extends CognateSpec {
  code: LatinCode;
  /** Filler words besides the registry's markers: request verbs and politeness ("zeig", "muestra"). */
  filler: string;
}

/** How a language's words, in Latin letters, are read as English ones (Russian's once transliterated). */
export interface CognateSpec {
  /** The language's endings and the English ones they correspond to (-ción → -tion), longest first. */
  endings: readonly (readonly [string, string])[];
  /** Letters written for another in English loanwords (German k for c: Kalender). */
  letters?: readonly (readonly [string, string])[];
}

// A word: letters, marks and digits, with inner hyphens ("E-Mail", "sous-dossiers").
const WORD = /[\p{L}\p{M}\p{N}]+(?:-[\p{L}\p{M}\p{N}]+)*/gu;
const MARKS = /\p{M}+/gu;
// A hyphenated pair is joined only when short, as the tokenizer joins English ones.
const MAX_JOINED = 14;
// Shorter words match too many of a list's words by ending or by one edit.
const MIN_COGNATE = 5;
// At most this many of the list's words stand for one word of the request.
const MAX_COGNATES = 2;

/** Lower case without accents, as the tokenizer folds Latin words. */
const fold = (word: string): string => word.normalize('NFD').replace(MARKS, '').toLowerCase();

export function latinLanguage(spec: LatinSpec): Language {
  const { strong, shared } = MARKERS[spec.code];
  const filler = new Set([...strong, ...shared, ...spec.filler.split(' ')].map(fold));
  return {
    code: spec.code,
    words: (text) => latinWords(text, filler, spec),
    carriesNoMeaning: (piece) => filler.has(fold(piece)),
    cognatesIn: (word, listTerms, stem) => cognates(word, listTerms, stem, spec),
  };
}

/** The request's words that are no filler, each glossed with its closed form and its English endings. */
function latinWords(text: string, filler: ReadonlySet<string>, spec: CognateSpec): LanguageWord[] {
  const found: LanguageWord[] = [];
  for (const match of text.matchAll(WORD)) {
    const word = fold(match[0]);
    const parts = word.split('-');
    // Filler words joined by hyphens are filler too ("est-ce", "a-t-il": its t is euphonic).
    const filled = parts.every((part) => filler.has(part) || (parts.length > 1 && part.length === 1));
    // A lone letter is no word, as the tokenizer has it ("15 h", Italian "i").
    if (filled || word.length === 1 || /^[0-9-]+$/.test(word)) continue;
    const glosses: string[] = [];
    if (parts.length === 2 && word.length - 1 <= MAX_JOINED && !/[0-9]/.test(word)) glosses.push(parts.join(''));
    if (parts.length === 1) glosses.push(...englishForms(word, spec).slice(1));
    found.push({ text: match[0], start: match.index, end: match.index + match[0].length, glosses });
  }
  return found;
}

/** `word` and the English forms its endings and letters correspond to ("informacion" → information). */
function englishForms(word: string, spec: CognateSpec): string[] {
  const forms = [word];
  for (const [from, to] of spec.letters ?? []) if (word.includes(from)) forms.push(word.replaceAll(from, to));
  for (const form of [...forms])
    for (const [written, english] of spec.endings) {
      const ending = fold(written);
      if (form.endsWith(ending) && form.length - ending.length >= 3) {
        forms.push(form.slice(0, form.length - ending.length) + english);
        break;
      }
    }
  return forms;
}

/**
 * The list's words (stems, as `listTerms` gives them) that `written`, a word of the request no tool has,
 * is a loanword or a cognate of: one of its English forms (englishForms) stems to the list's word, or
 * starts with it and adds at most an inflection's three letters (documento: document), or is one edit
 * from it, with the same first two letters (kalender → calender: calendar).
 */
export function cognates(
  written: string,
  listTerms: Iterable<string>,
  stem: (word: string) => string,
  spec: CognateSpec,
): string[] {
  const word = fold(written).replaceAll('-', '');
  if (word.length < MIN_COGNATE || !/^[a-z]+$/.test(word)) return [];
  const forms = englishForms(word, spec);
  const stems = new Set(forms.map(stem));
  // One edit only from the word as written (or with its letters for English ones: kalender, calender),
  // not from a form its ending was taken off: "requet" is one edit from "request", and requête is a query.
  const spellings = forms.slice(0, 1 + (spec.letters ?? []).filter(([from]) => word.includes(from)).length);
  const found: string[] = [];
  for (const term of listTerms) {
    if (term.length < 4 || !/^[a-z]+$/.test(term)) continue;
    const matches =
      stems.has(term) ||
      (term.length >= MIN_COGNATE && forms.some((form) => form.startsWith(term) && form.length - term.length <= 3)) ||
      spellings.some(
        (form) =>
          form.length >= MIN_COGNATE &&
          term.length >= MIN_COGNATE &&
          form.slice(0, 2) === term.slice(0, 2) &&
          withinOneEdit(form, term),
      );
    if (matches && !found.includes(term)) found.push(term);
    if (found.length === MAX_COGNATES) break;
  }
  return found;
}
