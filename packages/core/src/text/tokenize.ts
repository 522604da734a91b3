// The tokenizer for tool text and queries.
//
// - Identifiers are split into words: `getFileContents`, `HTMLParser`, `search_issues`, `kebab-case`,
//   `a.b.c`, `github:create_issue`, `v2Api` (letters and digits apart). Mixed words such as `mp3` or
//   `s3` are also kept whole, since the whole is what people type.
// - Words are lowercased, stop words dropped, and stemmed with Porter2 (memoised).
// - Chinese, Japanese and Korean runs become overlapping character bigrams (a lone character stays a
//   unigram), which matches CJK words without a dictionary and costs nothing at query time.
//
// No `Intl.Segmenter` or NLP model on this path: it must tokenize 1,000 tools in a few milliseconds in a
// browser too. (wink-nlp was measured for the query side; see the README's Ranking section.)
import { cognateReadings } from '../languages/cognate-readings.js';
import { crossLingualTerms, languageOf } from './cross-lingual.js';
import { findArgumentValues, type FoundValue } from '../everyday/argument-values.js';
import { CJK_LETTER as CJK, CJK_RUNS } from '../languages/scripts.js';
import { everydayReadings, type QueryWord } from '../everyday/readings.js';
import type { RuleFamily } from '../everyday/rule-families.js';
import type { QueryReadings } from '../languages/query-readings.js';
import type { Language } from '../languages/language.js';
import { FNV_OFFSET, fnvStep } from './fnv.js';
import { NEGATIONS } from '../languages/stop-words.js';
import { withoutElision } from '../languages/elision.js';
import { TokenBuffer } from './token-buffer.js';
import { isDigits, processVocabulary, type Vocabulary } from './vocabulary.js';

// A run of letters/digits plus the joiners that appear inside identifiers and contractions.
const WORD_RUN = /[\p{L}\p{M}\p{N}]+(?:['’][\p{L}]+)*/gu;
const HAS_UPPER_OR_DIGIT = /[\p{Lu}\p{N}]/u;
const LETTERS_AND_DIGITS = /[\p{L}\p{M}\p{N}]+/gu;

const queryTokens = new TokenBuffer(64);

/** The index terms of `text`, in order (in the process's vocabulary: they are strings, ids stay inside). */
export function tokenize(text: string): string[] {
  processVocabulary.resetIfFull();
  return termsOf(text, processVocabulary);
}

/**
 * The terms of `text` by the general path alone: runs of letters and digits found by a Unicode regular
 * expression and split with Unicode character classes, without the byte scan and the run memo. On
 * ASCII text the fast path must give the same (test/tokenize.property.test.ts).
 */
export function generalPathTerms(text: string): string[] {
  const vocabulary = processVocabulary;
  vocabulary.resetIfFull();
  queryTokens.length = 0;
  for (const match of text.matchAll(LETTERS_AND_DIGITS)) {
    addWord(match[0], queryTokens, vocabulary);
    const joined = /(?:^|[^\p{L}\p{M}\p{N}-])([a-zA-Z]+)-$/u.exec(
      text.slice(Math.max(0, match.index - MAX_JOINED - 2), match.index),
    );
    const after = text[match.index + match[0].length];
    if (joined && /^[a-zA-Z]+$/.test(match[0]) && after !== '-' && joined[1]!.length + match[0].length <= MAX_JOINED)
      addTerm(joined[1]! + match[0], queryTokens, vocabulary);
  }
  return termsOfTokens(vocabulary);
}

/** tokenize without renewing a full vocabulary: for a query scored against a corpus just built. */
function termsOf(text: string, vocabulary: Vocabulary): string[] {
  queryTokens.length = 0;
  tokenizeInto(text, queryTokens, vocabulary);
  return termsOfTokens(vocabulary);
}

function termsOfTokens(vocabulary: Vocabulary): string[] {
  const terms = new Array<string>(queryTokens.length);
  for (let i = 0; i < queryTokens.length; i += 1) terms[i] = vocabulary.termOf(queryTokens.ids[i]!);
  return terms;
}

const encoder = new TextEncoder();
// An all-ASCII text's characters as bytes. encodeInto is native and fast, and reading a Uint8Array
// is several times cheaper than charCodeAt, which must dispatch on how the engine happens to store
// each string (flat, sliced, one or two bytes per character).
let asciiBytes = new Uint8Array(4096);

/**
 * Appends the term ids of `text` in `vocabulary` to `out`. Ids are valid until the next
 * `vocabulary.resetIfFull()`, so a caller turns them into terms before calling that again.
 */
export function tokenizeInto(text: string, out: TokenBuffer, vocabulary: Vocabulary): void {
  const length = text.length;
  // One byte more than the text: tokenizeAscii ends on a separator written after it.
  if (length >= asciiBytes.length) asciiBytes = new Uint8Array(Math.max(length + 1, asciiBytes.length * 2));
  if (length <= SHORT_TEXT ? copiedAscii(text, asciiBytes) : encodedAscii(text, asciiBytes))
    tokenizeAscii(text, asciiBytes, out, vocabulary);
  else tokenizeAnyScript(text, out, vocabulary);
}

// A request's words are tokenized one by one: up to this length a loop over char codes copies a word
// in less time than a call to encodeInto takes (docs/performance.md#a-requests-words-as-bytes).
const SHORT_TEXT = 12;

/** Whether `text` is all ASCII, its characters then copied to `bytes` (a short text). */
function copiedAscii(text: string, bytes: Uint8Array): boolean {
  for (let k = 0; k < text.length; k += 1) {
    const code = text.charCodeAt(k);
    if (code >= 128) return false;
    bytes[k] = code;
  }
  return true;
}

/** Whether `text` is all ASCII, its characters then encoded into `bytes`. */
function encodedAscii(text: string, bytes: Uint8Array): boolean {
  const { read, written } = encoder.encodeInto(text, bytes);
  return read === text.length && written === text.length;
}

// Per ASCII byte: 0 for a separator, LOWER for a-z, UPPER_OR_DIGIT for A-Z and 0-9.
const LOWER = 1;
const UPPER_OR_DIGIT = 2;
const BYTE_CLASS = new Uint8Array(256);
for (let code = 97; code <= 122; code += 1) BYTE_CLASS[code] = LOWER;
for (let code = 65; code <= 90; code += 1) BYTE_CLASS[code] = UPPER_OR_DIGIT;
for (let code = 48; code <= 57; code += 1) BYTE_CLASS[code] = UPPER_OR_DIGIT;

/**
 * Most tool text: a hand-rolled scan over the bytes of an all-ASCII text. Every run of letters and
 * digits is looked up in the run memo (run-table.ts) by an FNV-1a hash computed along the way; a run
 * seen for the first time is split (camelCase humps, letters and digits), stemmed and remembered.
 */
function tokenizeAscii(text: string, bytes: Uint8Array, out: TokenBuffer, vocabulary: Vocabulary): void {
  const length = text.length;
  const runs = vocabulary.runs;
  // A separator after the text ends its last run without a bound check in the run loop.
  bytes[length] = 32;
  let i = 0;
  for (;;) {
    while (i < length && BYTE_CLASS[bytes[i]!] === 0) i += 1;
    if (i >= length) return;
    const start = i;
    let hash = fnvStep(FNV_OFFSET, bytes[i]!);
    for (i += 1; BYTE_CLASS[bytes[i]!] !== 0; i += 1) hash = fnvStep(hash, bytes[i]!);
    const slot = runs.find(bytes, start, i, hash);
    if (slot >= 0) runs.appendIds(slot, out);
    else learnAsciiRun(text, bytes, start, i, hash, out, vocabulary);
    if (start >= 2 && bytes[start - 1] === HYPHEN) addHyphenJoin(text, bytes, start, i, out, vocabulary);
  }
}

const HYPHEN = 45;
// A hyphenated pair is joined only when short, as the compounds people also write closed are.
const MAX_JOINED = 14;

/**
 * Two words joined by one hyphen ("e-mail", "sign-in", "to-do") are also the closed word ("email"),
 * as people often write them: `text.slice(start, end)` is the second word. Not in longer chains
 * ("get-file-contents"), which are identifiers, nor with digits ("utf-8").
 */
function addHyphenJoin(
  text: string,
  bytes: Uint8Array,
  start: number,
  end: number,
  out: TokenBuffer,
  vocabulary: Vocabulary,
): void {
  if (bytes[end] === HYPHEN) return;
  let first = start - 1;
  while (first > 0 && BYTE_CLASS[bytes[first - 1]!] !== 0) first -= 1;
  if (first === start - 1 || end - first - 1 > MAX_JOINED || (first > 0 && bytes[first - 1] === HYPHEN)) return;
  for (let k = first; k < end; k += 1) if (k !== start - 1 && isDigit(bytes[k]!)) return;
  addTerm(text.slice(first, start - 1) + text.slice(start, end), out, vocabulary);
}

/**
 * A run the memo does not hold yet, `text.slice(start, end)` with its ASCII bytes at the same
 * positions of `bytes`: split, stemmed and remembered.
 */
function learnAsciiRun(
  text: string,
  bytes: Uint8Array,
  start: number,
  end: number,
  hash: number,
  out: TokenBuffer,
  vocabulary: Vocabulary,
): void {
  const from = out.length;
  // A run of lowercase letters only is one word; capitals and digits make a camelCase or mixed run.
  let plain = !isDigit(bytes[start]!);
  for (let k = start + 1; plain && k < end; k += 1) plain = BYTE_CLASS[bytes[k]!] === LOWER;
  if (plain) addNewWord(text.slice(start, end), out, vocabulary);
  else addIdentifier(text, start, end, out, vocabulary);
  vocabulary.runs.remember(bytes, start, end, hash, out, from);
}

/**
 * Text with other scripts: the same scan over char codes, where runs with non-ASCII characters go
 * through the Unicode-aware regular expressions below (ASCII runs still use the run memo).
 */
function tokenizeAnyScript(text: string, out: TokenBuffer, vocabulary: Vocabulary): void {
  const length = text.length;
  const runs = vocabulary.runs;
  let start = -1;
  let ascii = true;
  let hash = 0;
  for (let i = 0; i <= length; i += 1) {
    const code = i < length ? text.charCodeAt(i) : 32;
    if (code >= 97 && code <= 122) {
      if (start < 0) {
        start = i;
        ascii = true;
        hash = FNV_OFFSET;
      }
      hash = fnvStep(hash, code);
      continue;
    }
    if ((code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code >= 128) {
      if (start < 0) {
        start = i;
        ascii = true;
        hash = FNV_OFFSET;
      }
      hash = fnvStep(hash, code);
      if (code >= 128) ascii = false;
      continue;
    }
    if (start >= 0) {
      if (!ascii) for (const match of text.slice(start, i).matchAll(WORD_RUN)) addWord(match[0], out, vocabulary);
      else {
        const run = runBytes(text, start, i);
        const slot = runs.find(run, 0, i - start, hash);
        if (slot >= 0) runs.appendIds(slot, out);
        else learnAsciiRun(text.slice(start, i), run, 0, i - start, hash, out, vocabulary);
      }
      start = -1;
    }
  }
}

let runScratch = new Uint8Array(256);

/** The ASCII run `text.slice(start, end)` as bytes, in a reused buffer. */
function runBytes(text: string, start: number, end: number): Uint8Array {
  if (end - start > runScratch.length) runScratch = new Uint8Array((end - start) * 2);
  for (let k = start; k < end; k += 1) runScratch[k - start] = text.charCodeAt(k);
  return runScratch;
}

const isDigit = (code: number): boolean => code >= 48 && code <= 57;

// Character classes for splitting identifiers into words (the characters of a run are letters, marks
// and digits): capitals, lower-case letters and combining marks, letters without case (CJK, Arabic,
// ...), digits, and other letters (title-case, modifier).
const UPPER = 1;
const LOWER_OR_MARK = 2;
const CASELESS = 3;
const DIGIT = 4;
const OTHER_LETTER = 5;
const ASCII_CLASS = new Uint8Array(128);
for (let code = 65; code <= 90; code += 1) ASCII_CLASS[code] = UPPER;
for (let code = 97; code <= 122; code += 1) ASCII_CLASS[code] = LOWER_OR_MARK;
for (let code = 48; code <= 57; code += 1) ASCII_CLASS[code] = DIGIT;

function classAt(text: string, i: number): number {
  const code = text.charCodeAt(i);
  if (code < 128) return ASCII_CLASS[code]!;
  const char = String.fromCodePoint(text.codePointAt(i)!);
  if (/\p{Lu}/u.test(char)) return UPPER;
  if (/[\p{Ll}\p{M}]/u.test(char)) return LOWER_OR_MARK;
  if (/\p{Lo}/u.test(char)) return CASELESS;
  if (/\p{N}/u.test(char)) return DIGIT;
  return OTHER_LETTER;
}

/** Where the character after the one at `i` starts (a character outside the BMP takes two units). */
function after(text: string, i: number): number {
  const code = text.charCodeAt(i);
  return code >= 0xd800 && code <= 0xdbff && i + 1 < text.length ? i + 2 : i + 1;
}

/**
 * Adds the words of the identifier `text.slice(start, end)` (letters, marks and digits): split at
 * camelCase humps ("getFile": get|File; "HTMLParser": HTML|Parser, the last capital of a run starting
 * the next word) and between letters and digits ("v2Api": v|2|Api); a short run of several words
 * with digits is also kept whole ("mp3", "s3", "ec2", "h264"), since that is how people type it. The
 * one splitting loop for ASCII runs (whose words the run memo then remembers) and other scripts.
 */
function addIdentifier(text: string, start: number, end: number, out: TokenBuffer, vocabulary: Vocabulary): void {
  let parts = 0;
  let digits = false;
  let i = start;
  while (i < end) {
    const partStart = i;
    const kind = classAt(text, i);
    let last = i;
    i = after(text, i);
    if (kind === UPPER) {
      while (i < end && classAt(text, i) === UPPER) {
        last = i;
        i = after(text, i);
      }
      if (i < end && classAt(text, i) === LOWER_OR_MARK) {
        if (last > partStart)
          i = last; // HTML|Parser
        else while (i < end && classAt(text, i) === LOWER_OR_MARK) i = after(text, i); // Parser
      }
    } else if (kind === OTHER_LETTER) {
      while (i < end && classAt(text, i) !== DIGIT) i = after(text, i);
    } else {
      while (i < end && classAt(text, i) === kind) i = after(text, i);
    }
    if (kind === DIGIT) digits = true;
    addTerm(text.slice(partStart, i), out, vocabulary);
    parts += 1;
  }
  // Several parts, one of them digits: letters and digits.
  if (parts > 1 && digits && end - start <= 8) out.push(vocabulary.internTerm(text.slice(start, end).toLowerCase()));
  // A product name with inner capitals is also the whole word, as people type it ("github").
  else if (parts > 1 && end - start <= MAX_PRODUCT_NAME && isProductName(text.slice(start, end)))
    addTerm(text.slice(start, end), out, vocabulary);
}

// GitHub, PostgreSQL, YouTube, OpenAI, WhatsApp, DuckDuckGo: a capital, lower case, then one or two
// humps. Not HTMLParser (an acronym first) nor getFileContents (an identifier starts in lower case).
const PRODUCT_NAME = /^\p{Lu}\p{Ll}+(?:\p{Lu}+\p{Ll}*){1,2}$/u;
const MAX_PRODUCT_NAME = 20;

/** Whether a word is written as a product name with inner capitals (see PRODUCT_NAME). */
function isProductName(word: string): boolean {
  return word.length <= MAX_PRODUCT_NAME && PRODUCT_NAME.test(word);
}

function addWord(raw: string, out: TokenBuffer, vocabulary: Vocabulary): void {
  const word = foldWord(raw.replace(/['’]/g, ''));
  if (CJK.test(word)) {
    for (const run of word.matchAll(CJK_RUNS)) {
      if (run[1] !== undefined) addCjkBigrams(run[1], out, vocabulary);
      else if (run[2] !== undefined) addWord(run[2], out, vocabulary);
    }
    return;
  }
  if (!HAS_UPPER_OR_DIGIT.test(word)) addTerm(word, out, vocabulary);
  else addIdentifier(word, 0, word.length, out, vocabulary);
}

// Latin letters with accents or other marks: folded to their base letters ("café" → "cafe"), as people
// often type them without. Only for Latin script: in other scripts the marks are letters' identities
// (the dakuten of "が", Devanagari vowel signs).
const LATIN_WITH_MARKS = /^(?=.*\p{M})[\p{Script=Latin}\p{M}\p{N}]+$/u;
const MARKS = /\p{M}+/gu;
// Latin letters with accents and combining marks: the only words decomposed (most non-ASCII text is not).
const MAY_HAVE_ACCENTS = /[\u00C0-\u024F\u1E00-\u1EFF]|\p{M}/u;
const NOT_NFKC = /[\uFF01-\uFF5E\uFF65-\uFF9F\u00AA-\u00BF\u2460-\u24FF\u3000-\u30FF\u3200-\u33FF\uFB00-\uFB06]/u;

/**
 * A non-ASCII word as both sides are compared: NFKC (full-width "ＧｉｔＨｕｂ" and half-width "ｶﾅ" to
 * their usual forms, ligatures apart), then Latin accents folded.
 */
function foldWord(word: string): string {
  const folded = NOT_NFKC.test(word) ? word.normalize('NFKC') : word;
  if (!MAY_HAVE_ACCENTS.test(folded)) return folded;
  const decomposed = folded.normalize('NFD');
  return LATIN_WITH_MARKS.test(decomposed) ? decomposed.replace(MARKS, '') : folded;
}

/** addTerm for a run the run memo has just missed: its written form is not asked about again. */
function addNewWord(word: string, out: TokenBuffer, vocabulary: Vocabulary): void {
  const id = vocabulary.termIdOfNewWord(word);
  if (id >= 0) out.push(id);
}

function addTerm(word: string, out: TokenBuffer, vocabulary: Vocabulary): void {
  const id = vocabulary.termId(word);
  if (id >= 0) out.push(id);
}

function addCjkBigrams(run: string, out: TokenBuffer, vocabulary: Vocabulary): void {
  const chars = Array.from(run);
  if (chars.length === 1) {
    out.push(vocabulary.internTerm(chars[0]!));
    return;
  }
  for (let i = 0; i + 1 < chars.length; i += 1) out.push(vocabulary.internTerm(chars[i]! + chars[i + 1]!));
}

/** A request's terms, with the ones a negation governs set apart ("files without images": images). */
export interface QueryTerms {
  /** Distinct positive terms, in order of first appearance. */
  terms: string[];
  /** Distinct negated terms: a tool matching them is demoted, never promoted. */
  negated: string[];
  /** Term -> the first surface word it came from, for explanations ("issu" -> "issues"). */
  surface: Map<string, string>;
  /**
   * How the terms group into the request's words and what else may stand for them: a Japanese
   * request's English glosses (cross-lingual.ts), an English one's everyday readings
   * (everyday/readings.ts). Absent: each term is a word of its own, with nothing else for it.
   */
  readings?: QueryReadings;
  /** Set when `readings` are a Japanese request's glosses. */
  crossLingual?: true;
  /**
   * For a request in a language read against the list's own words (Latin-script languages, Korean):
   * readings for its words no tool has, given the list's terms and their document frequencies
   * (languages/cognate-readings.ts). Ranking asks once it knows the list.
   */
  cognates?: (
    listTerms: () => Iterable<string>,
    docFreq: Int32Array,
    searched: ReadonlySet<string>,
  ) => QueryReadings | undefined;
  /** The words as written, lower case, for the rules that read the request as a whole (intent). */
  words: string[];
}

// A negation governs the next few content words up to a clause boundary.
const NEGATION_SCOPE = 3;
const CLAUSE_BREAK = /[.,;:!?()\n]|\b(?:but|and|or|then|while|however)\b/i;

/** How analyzeQuery reads a request. */
interface QueryAnalysisOptions {
  /**
   * The vocabulary of the list the request is scored against (the corpus's): the request's terms join
   * it, and a reading that needs the list to have a word asks it. Default: the process's.
   */
  vocabulary?: Vocabulary;
  /** Families of everyday rules to leave out (RankOptions.without). */
  without?: readonly RuleFamily[];
}

/** The request's terms and readings. */
export function analyzeQuery(
  query: string,
  { vocabulary = processVocabulary, without = NO_FAMILIES }: QueryAnalysisOptions = {},
): QueryTerms {
  const terms: string[] = [];
  const negated: string[] = [];
  const surface = new Map<string, string>();
  const seen = new Map<string, number>();
  const words: QueryWord[] = [];
  const caseRule = !without.includes('case');
  const negationsOpened = query.replace(/n['’]t\b/gi, ' not');
  // Argument values (URLs, addresses, file names, paths) stand as one word each, for their kind
  // (everyday/argument-values.ts); a placeholder keeps their dots and colons from breaking clauses.
  const values = without.includes('values') || CJK.test(query) ? [] : findArgumentValues(negationsOpened);
  const text = withPlaceholders(negationsOpened, values);
  const language = languageOf(query);
  let clauseIndex = 0;
  for (const clause of text.split(CLAUSE_BREAK)) {
    clauseIndex += 1;
    if (!clause) continue;
    let scope = 0;
    let lastEnd = -1;
    for (const match of clause.matchAll(WORD_OR_VALUE)) {
      const hyphenBefore = lastEnd >= 0 && match.index === lastEnd + 1 && clause[lastEnd] === '-';
      lastEnd = match.index + match[0].length;
      if (match[1] !== undefined) {
        const value = values[Number(match[1])]!;
        words.push({
          raw: value.text,
          clause: clauseIndex,
          hyphenBefore: false,
          negated: scope > 0,
          terms: [],
          value: value.words,
        });
        continue;
      }
      // A French or Italian word is read without the filler elided into it ("l'équipe": équipe).
      const raw = language === undefined ? match[0] : withoutElision(match[0], language);
      const lower = withoutApostrophes(raw.toLowerCase());
      // A Latin-script or Russian request's filler words ("eine", "le", "por", "мне") are none of the
      // request's, even those English reads as a negation (Portuguese "no": in the).
      if (language !== undefined && ALPHABETIC.test(raw) && language.carriesNoMeaning(raw)) continue;
      if (NEGATIONS.has(lower)) {
        scope = NEGATION_SCOPE;
        continue;
      }
      const { produced, parts } = wordTerms(raw, caseRule, vocabulary);
      // A run with CJK in it is often the whole request (no spaces): its terms are named by their own
      // characters, or by the Latin word they came from, not by the run.
      const surfaces = CJK.test(raw) ? surfacesInCjkRun(raw, vocabulary) : undefined;
      const word: QueryWord = { raw, clause: clauseIndex, hyphenBefore, negated: scope > 0, terms: [] };
      if (parts !== undefined) word.parts = parts;
      for (const term of produced) {
        if (!surface.has(term)) surface.set(term, surfaces ? (surfaces.get(term) ?? term) : raw);
        const known = seen.get(term);
        if (known !== undefined) {
          if (known >= 0 && scope === 0) word.terms.push(known);
          continue;
        }
        seen.set(term, scope > 0 ? -1 : terms.length);
        if (scope === 0) word.terms.push(terms.length);
        (scope > 0 ? negated : terms).push(term);
      }
      words.push(word);
      if (produced.length > 0 && scope > 0) scope -= 1;
    }
  }
  return withReadings({ query, language, terms, negated, surface, words, without, vocabulary });
}

/** `word` without its apostrophes (most words have none: a look costs less than a replace). */
const withoutApostrophes = (word: string): string => (APOSTROPHE.test(word) ? word.replace(APOSTROPHES, '') : word);
const APOSTROPHE = /['’]/;
const APOSTROPHES = /['’]/g;

/**
 * A request word's terms. Bare numbers are arguments (ids, dates, amounts), not what a tool does. A
 * product name gives its parts and then its whole (tokenize's addIdentifier): the whole is the word;
 * its parts stand in only where the list lacks it (everyday/readings.ts).
 */
function wordTerms(raw: string, caseRule: boolean, vocabulary: Vocabulary): { produced: string[]; parts?: string[] } {
  const produced = withoutNumbers(termsOf(raw, vocabulary));
  if (produced.length <= 1 || !isProductName(raw.replace(/['’].*$/, ''))) return { produced };
  const parts = produced.slice(0, -1);
  return caseRule ? { produced: produced.slice(-1), parts } : { produced: parts };
}

/** `terms` less the bare numbers, in place (termsOf's array is the caller's). */
function withoutNumbers(terms: string[]): string[] {
  let kept = 0;
  for (const term of terms) if (!isDigits(term)) terms[kept++] = term;
  // Setting the length is a call into the runtime: only when a number was dropped.
  if (kept < terms.length) terms.length = kept;
  return terms;
}

/** A request's words as analyzeQuery found them, before readings. */
interface FoundWords {
  query: string;
  language: Language | undefined;
  terms: string[];
  negated: string[];
  surface: Map<string, string>;
  words: QueryWord[];
  without: readonly RuleFamily[];
  vocabulary: Vocabulary;
}

/** The analysis with its readings: a language's glosses (and cognates), or English's everyday readings. */
function withReadings(found: FoundWords): QueryTerms {
  const { query, language, terms, negated, surface, words, without, vocabulary } = found;
  const written = words.map((word) => word.raw.toLowerCase());
  const termsIn = termReader(vocabulary);
  const crossLingual = language && crossLingualTerms(query, language, terms, termsIn);
  if (crossLingual === undefined) {
    const readings = everydayReadings(words, terms, termsIn, without, vocabulary);
    return readings
      ? { terms, negated, surface, readings, words: written }
      : { terms, negated, surface, words: written };
  }
  // A bigram inside a word is named by the word ("カレンダー", not "ンダ").
  for (let t = 0; t < terms.length; t += 1) {
    const unit = crossLingual.unitOfTerm[t]!;
    if (unit >= 0 && unit < crossLingual.words.length) surface.set(terms[t]!, crossLingual.words[unit]!);
  }
  const analyzed: QueryTerms = { terms, negated, surface, readings: crossLingual, crossLingual: true, words: written };
  if (language!.cognatesIn !== undefined)
    analyzed.cognates = (listTerms, docFreq, searched) =>
      cognateReadings(
        {
          language: language!,
          readings: crossLingual,
          docFreq,
          positiveCount: terms.length,
          negatedCount: negated.length,
          searched,
          stem: (word) => termsIn(word)[0] ?? '',
        },
        listTerms,
      );
  return analyzed;
}

/**
 * termsOf in `vocabulary`, as a function of the text. Made here rather than as a named arrow in
 * withReadings: run under tsx (the benches, the tests), a named arrow is given its name by a property
 * definition each time it is made, a cost per request (docs/performance.md#a-requests-words-as-bytes).
 */
function termReader(vocabulary: Vocabulary): (text: string) => string[] {
  return (text) => termsOf(text, vocabulary);
}

// A word of Latin or Cyrillic letters (and marks): the only kind a language's filler words are (CJK
// filler is told by carriesNoMeaning bigram by bigram: cross-lingual.ts).
const ALPHABETIC = /^(?:[\p{Script=Latin}\p{M}'’]+|\p{Script=Cyrillic}+)$/u;

const NO_FAMILIES: readonly RuleFamily[] = [];

// A word, or an argument value's placeholder (withPlaceholders) with its index in group 1.
const WORD_OR_VALUE = new RegExp(`\uE000(\\d+)\uE001|${WORD_RUN.source}`, 'gu');

/** `text` with a placeholder no word or clause break matches before each value, or instead of it. */
function withPlaceholders(text: string, values: readonly FoundValue[]): string {
  let out = text;
  for (let v = values.length - 1; v >= 0; v -= 1)
    out = `${out.slice(0, values[v]!.start)}\uE000${v}\uE001${values[v]!.spelled ? ` ${values[v]!.text}` : ''}${out.slice(values[v]!.end)}`;
  return out;
}

/** Per term of a run with CJK characters: the Latin word it came from (CJK terms name themselves). */
function surfacesInCjkRun(run: string, vocabulary: Vocabulary): Map<string, string> {
  const surfaces = new Map<string, string>();
  for (const part of run.matchAll(CJK_RUNS)) {
    if (part[2] === undefined) continue;
    for (const term of termsOf(part[2], vocabulary)) if (!surfaces.has(term)) surfaces.set(term, part[2]);
  }
  return surfaces;
}
