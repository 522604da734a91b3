import { stem as porter2 } from 'porter2';
import { detachString } from './detach.js';
import { clearRunTable } from './run-table.js';
import { STOP_WORDS } from './stop-words.js';

/**
 * The vocabulary: word as written -> term id, where a term is the Porter2 stem of the lowercase word
 * (non-ASCII words, accented or Cyrillic for instance, are only lowercased), and stop words and lone
 * letters have id -1. Tool lists repeat the same few thousand words, so stemming each distinct word
 * once is most of the tokenizer's speed, and ids let analysis count terms in flat arrays instead of a
 * Map per tool. Ids are transient: they hold only within one analysis (see `resetVocabularyIfFull`).
 * The vocabulary holds only words and stems, no tool identity, and its own copies of them (detachString):
 * it outlives the texts they were cut from.
 */
const MAX_WORDS = 60_000;
// And at most this many characters of words and terms together: hostile lists can bring long words.
// With MAX_WORDS this bounds the vocabulary near 10 MB.
const MAX_CHARS = 2_000_000;
let chars = 0;
const idOfWritten = new Map<string, number>();
const idOfTerm = new Map<string, number>();
const terms: string[] = [];
let epoch = 0;

export function termId(written: string): number {
  let id = idOfWritten.get(written);
  if (id === undefined) {
    id = termIdOfNewWord(written);
    idOfWritten.set(detachString(written), id);
    chars += written.length;
  }
  return id;
}


/**
 * termId without remembering the written word: for a caller that asks about each written word once
 * (the tokenizer's run memo does), to whom that memo would be a Map lookup and insert per new word.
 */
export function termIdOfNewWord(written: string): number {
  const word = written.toLowerCase();
  if (STOP_WORDS.has(word) || (word.length < 2 && !/[0-9]/.test(word))) return -1;
  return internTerm(word.length > 2 && isLowercaseLetters(word) ? porter2(word) : word);
}

function isLowercaseLetters(word: string): boolean {
  for (let i = 0; i < word.length; i += 1) {
    const code = word.charCodeAt(i);
    if (code < 97 || code > 122) return false;
  }
  return true;
}

/** The term (stem) of an id from `termId` or `internTerm`. */
export function termOf(id: number): string {
  return terms[id]!;
}

/** The id of a term (a stem, as termOf gives it) already in the vocabulary, or -1. */
export function knownTermId(term: string): number {
  return idOfTerm.get(term) ?? -1;
}

/** The id of an already-final term (a CJK bigram, a whole "mp3"), not stemmed or filtered. */
export function internTerm(term: string): number {
  let id = idOfTerm.get(term);
  if (id === undefined) {
    id = terms.length;
    const own = detachString(term);
    terms.push(own);
    idOfTerm.set(own, id);
    chars += term.length;
  }
  return id;
}

/** Number of term ids in use (an upper bound for arrays indexed by id). */
export function vocabularySize(): number {
  return terms.length;
}

/** Drops the vocabulary when it is full; call only between analyses, since it invalidates ids. */
export function resetVocabularyIfFull(): void {
  if (idOfWritten.size < MAX_WORDS && terms.length < MAX_WORDS && chars < MAX_CHARS) return;
  chars = 0;
  idOfWritten.clear();
  idOfTerm.clear();
  terms.length = 0;
  epoch += 1;
  clearRunTable();
}

/** Which vocabulary ids belong to: it changes whenever `resetVocabularyIfFull` drops the ids. */
export function vocabularyEpoch(): number {
  return epoch;
}
