import { stem } from './stem.js';
import { NEGATIONS, STOP_WORDS } from './stop-words.js';

/**
 * The tokenizer for tool text and queries.
 *
 * - Identifiers are split into words: `getFileContents`, `HTMLParser`, `search_issues`, `kebab-case`,
 *   `a.b.c`, `github:create_issue`, `v2Api` (letters and digits apart). Mixed words such as `mp3` or
 *   `s3` are also kept whole, since the whole is what people type.
 * - Words are lowercased, stop words dropped, and stemmed with Porter2 (memoised).
 * - Chinese, Japanese and Korean runs become overlapping character bigrams (a lone character stays a
 *   unigram), which matches CJK words without a dictionary and costs nothing at query time.
 *
 * No `Intl.Segmenter` or NLP model on this path: it must tokenize 1,000 tools in a few milliseconds in a
 * browser too. (wink-nlp was measured for the query side; see the README's Ranking section.)
 */

// A run of letters/digits plus the joiners that appear inside identifiers and contractions.
const WORD_RUN = /[\p{L}\p{M}\p{N}]+(?:['’][\p{L}]+)*/gu;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const CJK_RUNS = /([\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}ー]+)|([^\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}ー]+)/gu;
// Camel/Pascal parts: "HTMLParser" -> HTML, Parser; "getFileContents" -> get, File, Contents; digits apart.
const CAMEL_PART = /\p{Lu}+(?![\p{Ll}\p{M}])|\p{Lu}?[\p{Ll}\p{M}]+|\p{Lo}+|\p{N}+|[\p{L}\p{M}]+/gu;
const ASCII_LOWER_WORD = /^[a-z]+$/;
const HAS_UPPER_OR_DIGIT = /[\p{Lu}\p{N}]/u;

/** Appends the index terms of `text` to `out` (and returns it). */
export function tokenize(text: string, out: string[] = []): string[] {
  for (const match of text.matchAll(WORD_RUN)) addWord(match[0], out);
  return out;
}

function addWord(raw: string, out: string[]): void {
  const word = raw.replace(/['’]/g, '');
  if (ASCII_LOWER_WORD.test(word)) {
    addTerm(word, out);
    return;
  }
  if (CJK.test(word)) {
    for (const run of word.matchAll(CJK_RUNS)) {
      if (run[1] !== undefined) addCjkBigrams(run[1], out);
      else if (run[2] !== undefined) addWord(run[2], out);
    }
    return;
  }
  if (!HAS_UPPER_OR_DIGIT.test(word)) {
    addTerm(word.toLowerCase(), out);
    return;
  }
  let parts = 0;
  let lettersAndDigits = false;
  for (const part of word.matchAll(CAMEL_PART)) {
    parts += 1;
    if (/\p{N}/u.test(part[0])) lettersAndDigits = true;
    addTerm(part[0].toLowerCase(), out);
  }
  // Keep short letter+digit words whole too ("mp3", "s3", "ec2", "h264"): that is how people type them.
  if (parts > 1 && lettersAndDigits && word.length <= 8) out.push(word.toLowerCase());
}

function addTerm(lower: string, out: string[]): void {
  if (lower.length < 2 && !/\p{N}/u.test(lower)) return;
  if (STOP_WORDS.has(lower)) return;
  out.push(stem(lower));
}

function addCjkBigrams(run: string, out: string[]): void {
  const chars = Array.from(run);
  if (chars.length === 1) {
    out.push(chars[0]!);
    return;
  }
  for (let i = 0; i + 1 < chars.length; i += 1) out.push(chars[i]! + chars[i + 1]!);
}

/** A request's terms, with the ones a negation governs set apart ("files without images": images). */
export interface QueryTerms {
  /** Distinct positive terms, in order of first appearance. */
  terms: string[];
  /** Distinct negated terms: a tool matching them is demoted, never promoted. */
  negated: string[];
  /** Term -> the first surface word it came from, for explanations ("issu" -> "issues"). */
  surface: Map<string, string>;
}

// A negation governs the next few content words up to a clause boundary.
const NEGATION_SCOPE = 3;
const CLAUSE_BREAK = /[.,;:!?()\n]|\b(?:but|and|or|then|while|however)\b/i;

export function analyzeQuery(query: string): QueryTerms {
  const terms: string[] = [];
  const negated: string[] = [];
  const surface = new Map<string, string>();
  const seen = new Set<string>();
  const text = query.replace(/n['’]t\b/gi, ' not');
  for (const clause of text.split(CLAUSE_BREAK)) {
    if (!clause) continue;
    let scope = 0;
    for (const match of clause.matchAll(WORD_RUN)) {
      const lower = match[0].toLowerCase().replace(/['’]/g, '');
      if (NEGATIONS.has(lower)) {
        scope = NEGATION_SCOPE;
        continue;
      }
      const produced = tokenize(match[0]);
      for (const term of produced) {
        if (!surface.has(term)) surface.set(term, match[0]);
        if (seen.has(term)) continue;
        seen.add(term);
        (scope > 0 ? negated : terms).push(term);
      }
      if (produced.length > 0 && scope > 0) scope -= 1;
    }
  }
  return { terms, negated, surface };
}
