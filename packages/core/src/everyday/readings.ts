import type { RuleFamily } from '../everyday/rule-families.js';
import type { QueryReadings, ReadingRule } from '../languages/query-readings.js';
import { isDigits, type Vocabulary } from '../text/vocabulary.js';
import { inVerbPosition } from './intent.js';
import { lexiconEntries, lexiconKey, pairEntries, type LexiconFamily } from './lexicon.js';

/** One word of a request as analyzeQuery read it (tokenize.ts). */
export interface QueryWord {
  /** As written ("GitHub", "repos", "e"). */
  raw: string;
  /** Which clause of the request it is in: pairs of words never cross a clause. */
  clause: number;
  /** Written right after the word before it with a hyphen between ("e-mail": "mail"). */
  hyphenBefore: boolean;
  negated: boolean;
  /** Indices in the request's positive terms of the terms it gave (none for a stop word). */
  terms: number[];
  /** A product name's parts ("git", "hub" of "GitHub"), whose whole is its term. */
  parts?: string[];
  /** For an argument value (a URL, a file name): the words of its kind it stands for ("url"). */
  value?: readonly string[];
}

// What a reading counts, by where it comes from. A join or a product name's parts are the same word
// written another way; an abbreviation means what it stands for; an everyday noun or verb is near the
// API's word but not the same (docs/ranking.md, "Everyday requests", has the sweep behind the shares).
const RULES: Record<'joins' | 'parts' | 'values' | LexiconFamily, ReadingRule> = {
  joins: { score: 1, coverage: 1, fallback: false },
  parts: { score: 1, coverage: 1, fallback: true },
  abbreviations: { score: 0.9, coverage: 0.9, fallback: false, whole: true },
  nouns: { score: 0.8, coverage: 0.85, fallback: false, whole: true },
  verbs: { score: 0.7, coverage: 0.8, fallback: false, whole: true },
  values: { score: 0.8, coverage: 0.85, fallback: false },
};

const NO_ENTRIES: ReturnType<typeof lexiconEntries> = [];

// A join of two written words is tried only when it is short, as the compounds people split are.
const MAX_JOINED_CHARS = 14;
const LETTERS = /^\p{L}+$/u;

/**
 * The everyday readings of an English request: a hyphenated word is one word of the request, its
 * joined form a reading ("e-mail": email); two words may be one ("log in": login); a product name's
 * parts stand in when the list lacks the whole ("GitHub": git + hub); and the lexicon's words stand for
 * the API's (everyday-words.ts). Undefined when none applies: the request is scored term by term as
 * before. `termsOf` is the tokenizer's (terms of a text, stemmed); `vocabulary` the list's, which says
 * whether some list of the project has a word.
 */
export function everydayReadings(
  words: readonly QueryWord[],
  positive: readonly string[],
  termsOf: (text: string) => string[],
  without: readonly RuleFamily[],
  vocabulary: Vocabulary,
): QueryReadings | undefined {
  const builder = new ReadingsBuilder(positive, without, vocabulary);
  builder.groupIntoUnits(words);
  const verbPosition = inVerbPosition(words.map((word) => ({ lower: word.raw.toLowerCase(), clause: word.clause })));
  // Each word's lexicon key, made once: a word is looked up alone and in the pairs on either side of it.
  const keys = words.map((word) => lexiconKey(word.raw));
  for (let w = 0; w < words.length; w += 1) {
    const word = words[w]!;
    if (word.negated) {
      builder.addNegatedForm(word);
      continue;
    }
    if (word.value !== undefined) {
      builder.addValueReadings(word, termsOf, RULES.values);
      continue;
    }
    if (word.parts !== undefined && word.terms.length > 0 && builder.on('case'))
      builder.addReading(
        builder.unitOf(word.terms[0]!),
        word.parts.flatMap((part) => termsOf(part).map((term) => [term, part] as const)),
        RULES.parts,
      );
    const next = words[w + 1];
    const paired = next !== undefined && next.clause === word.clause && !next.negated ? next : undefined;
    const tookPair = builder.addLexiconReadings(
      word,
      keys[w]!,
      paired && { word: paired, key: keys[w + 1]! },
      verbPosition[w]!,
    );
    if (paired) builder.addClosedForm(word, paired);
    if (tookPair) w += 1;
  }
  return builder.build();
}

/** A request's units and readings as everydayReadings makes them, step by step. */
class ReadingsBuilder {
  readonly #without: readonly RuleFamily[];
  // The list's vocabulary: a closed or "un" form is read only when some list of the project has it.
  readonly #vocabulary: Vocabulary;
  readonly #unitOfTerm: Int32Array;
  readonly #unitWords: string[] = [];
  readonly #optional: number[] = [];
  readonly #silent: Uint8Array;
  /** Terms of the request and of readings so far: a term is in one place only. */
  readonly #taken: Set<string>;
  readonly #terms: string[] = [];
  readonly #termWord: number[] = [];
  readonly #termGloss: string[] = [];
  readonly #termReading: number[] = [];
  readonly #rules: ReadingRule[] = [];
  #merged = false;

  constructor(positive: readonly string[], without: readonly RuleFamily[], vocabulary: Vocabulary) {
    this.#without = without;
    this.#vocabulary = vocabulary;
    this.#unitOfTerm = new Int32Array(positive.length).fill(-1);
    this.#silent = new Uint8Array(positive.length);
    this.#taken = new Set(positive);
  }

  on(family: RuleFamily): boolean {
    return !this.#without.includes(family);
  }

  unitOf(term: number): number {
    return this.#unitOfTerm[term]!;
  }

  /** Units: one per term, but one per word for a hyphenated word ("web-page") or a product name. */
  groupIntoUnits(words: readonly QueryWord[]): void {
    for (let w = 0; w < words.length; w += 1) {
      const word = words[w]!;
      if (word.negated) continue;
      const group = this.on('joins') ? hyphenGroup(words, w) : [word];
      const whole = group.length > 1 || word.parts !== undefined;
      let unit = -1;
      for (const member of group) {
        for (const t of member.terms) {
          if (this.#unitOfTerm[t]! >= 0) continue;
          if (!whole || unit < 0) unit = this.#newUnit(whole ? group.map((g) => g.raw).join('-') : member.raw);
          this.#unitOfTerm[t] = unit;
          if (whole) this.#merged = true;
        }
      }
      w += group.length - 1;
    }
  }

  /** Adds a reading of `unit`: its terms with the word each stands for, less any term taken already. */
  addReading(unit: number, glossed: readonly (readonly [term: string, gloss: string])[], rule: ReadingRule): void {
    const fresh = glossed.filter(([term]) => !this.#taken.has(term) && !isDigits(term));
    if (fresh.length === 0) return;
    const reading = this.#rules.length;
    this.#rules.push(rule);
    for (const [term, gloss] of fresh) {
      this.#taken.add(term);
      this.#terms.push(term);
      this.#termWord.push(unit);
      this.#termGloss.push(gloss);
      this.#termReading.push(reading);
    }
  }

  /**
   * The lexicon's readings of `word`, or of it and `paired` when the lexicon knows the two together
   * ("look up", "set up": those go first); a verb's only where a command's verb stands. Returns whether
   * the pair was taken.
   */
  addLexiconReadings(
    word: QueryWord,
    key: string,
    paired: { word: QueryWord; key: string } | undefined,
    verbPosition: boolean,
  ): boolean {
    const pair = paired ? pairEntries(key, paired.key) : NO_ENTRIES;
    const members = pair.length > 0 ? [word, paired!.word] : [word];
    const entries = pair.length > 0 ? pair : lexiconEntries(key);
    let unit: number | undefined;
    for (const entry of entries) {
      if (!this.on(entry.family) || (entry.family === 'verbs' && !verbPosition)) continue;
      unit ??= this.#unitFor(members);
      for (const target of entry.targets) this.addReading(unit, target.glossed, RULES[entry.family]);
      if (members.length > 1) this.#silence(members, unit);
    }
    return pair.length > 0;
  }

  /** The words of an idiom ("get rid", "set up") become one word that counts only through its readings. */
  #silence(members: readonly QueryWord[], unit: number): void {
    this.#unitWords[unit] = members.map((m, i) => (i === 0 ? '' : m.hyphenBefore ? '-' : ' ') + m.raw).join('');
    for (const member of members)
      for (const t of member.terms) {
        const own = this.#unitOfTerm[t]!;
        if (own >= 0 && own !== unit) this.#optional[own] = 1;
        this.#unitOfTerm[t] = unit;
        this.#silent[t] = 1;
        this.#merged = true;
      }
  }

  /** An argument value's readings: each word of its kind ("directory", "folder", "path") one reading. */
  addValueReadings(word: QueryWord, termsOf: (text: string) => string[], rule: ReadingRule): void {
    let unit: number | undefined;
    for (const kindWord of word.value ?? []) {
      unit ??= this.#unitFor([word]);
      this.addReading(
        unit,
        termsOf(kindWord).map((term) => [term, kindWord] as const),
        rule,
      );
    }
  }

  /**
   * Two written words that are one when closed ("log in", "web page"), tried only when some list of
   * the project has the closed word (so that no request adds words to the vocabulary for it), and only
   * a closed word ("login"), not two run together ("newGitHub").
   */
  addClosedForm(word: QueryWord, paired: QueryWord): void {
    if (!this.on('joins') || !joinable(word.raw, paired.raw)) return;
    const joined = (word.raw + paired.raw).toLowerCase();
    const term = joined.length <= MAX_JOINED_CHARS ? this.#vocabulary.termOfJoinedWord(joined) : undefined;
    if (term !== undefined && this.#vocabulary.knownTermId(term) >= 0)
      this.addReading(this.#unitFor([word, paired]), [[term, joined]], RULES.joins);
  }

  /**
   * A negated word whose "un" form some list of the project has ("isn't staged": unstaged) asks for
   * that: a word of the request that counts only where a list has it.
   */
  addNegatedForm(word: QueryWord): void {
    if (!this.on('joins') || !isLetters(word.raw)) return;
    const joined = `un${word.raw.toLowerCase()}`;
    const term = joined.length <= MAX_JOINED_CHARS ? this.#vocabulary.termOfJoinedWord(joined) : undefined;
    if (term !== undefined && this.#vocabulary.knownTermId(term) >= 0)
      this.addReading(this.#newUnit(`not ${word.raw}`, true), [[term, joined]], RULES.joins);
  }

  /** The readings, or undefined when no rule applied (the request is then scored term by term). */
  build(): QueryReadings | undefined {
    if (!this.#merged && this.#rules.length === 0) return undefined;
    // A reading unit left with no reading (its terms were all taken) is no word of the request.
    return {
      words: this.#unitWords,
      terms: this.#terms,
      termWord: this.#termWord,
      termGloss: this.#termGloss,
      termReading: new Int32Array(this.#termReading),
      readings: this.#rules,
      unitOfTerm: this.#unitOfTerm,
      unitCount: this.#unitWords.length,
      optional: new Uint8Array(this.#optional),
      silent: this.#silent,
    };
  }

  #newUnit(word: string, isOptional = false): number {
    this.#unitWords.push(word);
    this.#optional.push(isOptional ? 1 : 0);
    return this.#unitWords.length - 1;
  }

  /**
   * The unit a reading of these words joins: the first of their own, else a new optional one (a stop
   * word such as "make" or "show" means an action only if the list has it).
   */
  #unitFor(members: readonly QueryWord[]): number {
    for (const member of members)
      for (const t of member.terms) if (this.#unitOfTerm[t]! >= 0) return this.#unitOfTerm[t]!;
    return this.#newUnit(shortened(members.map((member) => member.raw).join(' ')), true);
  }
}

// A unit's name appears in explanations: a long URL or path is cut.
const MAX_UNIT_NAME = 40;
const shortened = (name: string): string =>
  name.length > MAX_UNIT_NAME ? `${name.slice(0, MAX_UNIT_NAME - 1)}…` : name;

/** Whether `word` is letters only (LETTERS), by its char codes when it is ASCII. */
function isLetters(word: string): boolean {
  for (let i = 0; i < word.length; i += 1) {
    const code = word.charCodeAt(i);
    if (code >= 128) return LETTERS.test(word);
    if (!((code >= 97 && code <= 122) || (code >= 65 && code <= 90))) return false;
  }
  return word.length > 0;
}

// Words that never start or end a closed compound ("the current" is no "thecurrent").
const NEVER_JOINED = new Set(
  'a an the is are was were be of my your our their his her its this that these those and or'.split(' '),
);

/** Whether two written words may be one closed word: letters, one of them short, no article or copula. */
function joinable(first: string, second: string): boolean {
  if (first.length > 3 && second.length > 3) return false;
  if (!isLetters(first) || !isLetters(second)) return false;
  return !NEVER_JOINED.has(first.toLowerCase()) && !NEVER_JOINED.has(second.toLowerCase());
}

/** Word `w` and the words hyphenated to it ("e-mail", "sign-in", "to-do"), at most three. */
function hyphenGroup(words: readonly QueryWord[], w: number): QueryWord[] {
  const group = [words[w]!];
  for (let k = w + 1; k < words.length && group.length < 3; k += 1) {
    const next = words[k]!;
    if (!next.hyphenBefore || next.negated || next.clause !== words[w]!.clause) break;
    group.push(next);
  }
  return group;
}
