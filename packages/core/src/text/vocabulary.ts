import { stem as porter2 } from 'porter2';
import { detachString } from './detach.js';
import { RunTable } from './run-table.js';
import { STOP_WORDS } from '../languages/stop-words.js';

const MAX_WORDS = 60_000;
// Joined request words remembered (termOfJoinedWord), and their length at most: the joins people split
// are short (everyday/readings.ts tries none longer).
const MAX_JOINED_TERMS = 512;
const MAX_JOINED_CHARS = 14;
// And at most this many characters of words and terms together: hostile lists can bring long words.
// With MAX_WORDS this bounds the vocabulary near 10 MB.
const MAX_CHARS = 2_000_000;
// Bytes a remembered word or term costs besides its characters: its Map entry, string header and id.
const ENTRY_BYTES = 40;

/**
 * The vocabulary: word as written -> term id, where a term is the Porter2 stem of the lowercase word
 * (non-ASCII words, accented or Cyrillic for instance, are only lowercased), and stop words and lone
 * letters have id -1. Tool lists repeat the same few thousand words, so stemming each distinct word
 * once is most of the tokenizer's speed, and ids let analysis count terms in flat arrays instead of a
 * Map per tool. Ids are transient: they hold only within one epoch (see `resetIfFull`). Each project's
 * rank cache has its own (rank-cache.ts): with one per process, one project's never-seen words filled
 * it, and its renewal made every project analyse its list again (and told a fresh project by timing
 * which words others had used). It keeps its own copies of words (detachString): it outlives the texts
 * they were cut from.
 */
export class Vocabulary {
  // Epochs are numbered across all vocabularies, so that ids made under one vocabulary are never taken
  // for ids of another (score-query.ts checks a corpus's epoch against its vocabulary's).
  static #epochs = 0;
  /** The tokenizer's memo of written ASCII runs -> their ids; cleared with the ids. */
  readonly runs = new RunTable();
  readonly #idOfWritten = new Map<string, number>();
  readonly #idOfTerm = new Map<string, number>();
  readonly #terms: string[] = [];
  #epoch = Vocabulary.#epochs++;
  #chars = 0;
  // Terms of joined request words, remembered (termOfJoinedWord); kept per vocabulary, as the words are.
  readonly #joinedTerms = new Map<string, string | null>();
  #joinedChars = 0;

  termId(written: string): number {
    let id = this.#idOfWritten.get(written);
    if (id === undefined) {
      id = this.termIdOfNewWord(written);
      this.#idOfWritten.set(detachString(written), id);
      this.#chars += written.length;
    }
    return id;
  }

  /**
   * termId without remembering the written word: for a caller that asks about each written word once
   * (the tokenizer's run memo does), to whom that memo would be a Map lookup and insert per new word.
   */
  termIdOfNewWord(written: string): number {
    const term = termOfWord(written);
    return term === undefined ? -1 : this.internTerm(term);
  }

  /**
   * termOfWord of a word joined from two of a request's ("log in": login) or an "un" form, remembered:
   * a request's joins are stemmed again and again otherwise, and stemming is their cost with the
   * caches cold (docs/performance.md#joined-words-stemmed-once). At most MAX_JOINED_TERMS words of
   * MAX_JOINED_CHARS characters, counted in `bytes`; emptied when full.
   */
  termOfJoinedWord(joined: string): string | undefined {
    if (joined.length > MAX_JOINED_CHARS) return termOfWord(joined);
    const known = this.#joinedTerms.get(joined);
    if (known !== undefined) return known ?? undefined;
    if (this.#joinedTerms.size >= MAX_JOINED_TERMS) {
      this.#joinedTerms.clear();
      this.#joinedChars = 0;
    }
    const term = termOfWord(joined);
    this.#joinedTerms.set(detachString(joined), term ?? null);
    this.#joinedChars += joined.length + (term?.length ?? 0);
    return term;
  }

  /** The term (stem) of an id from `termId` or `internTerm`. */
  termOf(id: number): string {
    return this.#terms[id]!;
  }

  /** The id of a term (a stem, as termOf gives it) already in the vocabulary, or -1. */
  knownTermId(term: string): number {
    return this.#idOfTerm.get(term) ?? -1;
  }

  /** The id of an already-final term (a CJK bigram, a whole "mp3"), not stemmed or filtered. */
  internTerm(term: string): number {
    let id = this.#idOfTerm.get(term);
    if (id === undefined) {
      id = this.#terms.length;
      const own = detachString(term);
      this.#terms.push(own);
      this.#idOfTerm.set(own, id);
      this.#chars += term.length;
    }
    return id;
  }

  /** Number of term ids in use (an upper bound for arrays indexed by id). */
  get size(): number {
    return this.#terms.length;
  }

  /** Which epoch ids belong to: it changes whenever `resetIfFull` drops the ids. */
  get epoch(): number {
    return this.#epoch;
  }

  /** Approximate bytes held (words, terms and the run memo), for a cache that accounts its bytes. */
  get bytes(): number {
    return (
      ENTRY_BYTES * (this.#idOfWritten.size + this.#terms.length + this.#joinedTerms.size) +
      2 * (this.#chars + this.#joinedChars) +
      this.runs.bytes
    );
  }

  /** Drops the vocabulary when it is full; call only between analyses, since it invalidates ids. */
  resetIfFull(): void {
    if (this.#idOfWritten.size < MAX_WORDS && this.#terms.length < MAX_WORDS && this.#chars < MAX_CHARS) return;
    this.clear();
  }

  /** Drops every word and id (a new epoch). */
  clear(): void {
    this.#chars = 0;
    this.#idOfWritten.clear();
    this.#idOfTerm.clear();
    this.#terms.length = 0;
    this.#epoch = Vocabulary.#epochs++;
    this.runs.clear();
    this.#joinedTerms.clear();
    this.#joinedChars = 0;
  }
}

/**
 * The term of one written word (no separators in it) as the vocabulary makes it, without remembering
 * it: lower case, stemmed, undefined for a stop word or a lone letter. For readings, whose terms need
 * no id unless some list has them.
 */
export function termOfWord(written: string): string | undefined {
  const word = written.toLowerCase();
  if (STOP_WORDS.has(word) || (word.length < 2 && !/[0-9]/.test(word))) return undefined;
  return word.length > 2 && isLowercaseLetters(word) ? porter2(word) : word;
}

/** Whether `word` is digits only (/^[0-9]+$/, by char codes: a bare number is no term of a request). */
export function isDigits(word: string): boolean {
  if (word.length === 0) return false;
  for (let i = 0; i < word.length; i += 1) {
    const code = word.charCodeAt(i);
    if (code < 48 || code > 57) return false;
  }
  return true;
}

function isLowercaseLetters(word: string): boolean {
  for (let i = 0; i < word.length; i += 1) {
    const code = word.charCodeAt(i);
    if (code < 97 || code > 122) return false;
  }
  return true;
}

/**
 * The vocabulary of callers that have none of their own: a ranking without a rank cache, `tokenize`.
 * Everything else is handed its vocabulary: a corpus carries the one its ids belong to, and the
 * tokenizer and query analysis take it as a parameter.
 */
export const processVocabulary = new Vocabulary();
