/// <reference path="./wink-porter2-stemmer.d.ts" />
import porter2 from 'wink-porter2-stemmer';
import { STOP_WORDS } from './stop-words.js';

/**
 * The vocabulary: word as written -> term id, where a term is the Porter2 stem of the lowercase word
 * (non-ASCII words, accented or Cyrillic for instance, are only lowercased), and stop words and lone
 * letters have id -1. Tool lists repeat the same few thousand words, so stemming each distinct word
 * once is most of the tokenizer's speed, and ids let analysis count terms in flat arrays instead of a
 * Map per tool. Ids are transient: they hold only within one analysis (see `resetVocabularyIfFull`).
 * The vocabulary holds only words and stems, no tool identity.
 */
const MAX_WORDS = 60_000;
const idOfWritten = new Map<string, number>();
const idOfTerm = new Map<string, number>();
const terms: string[] = [];

export function termId(written: string): number {
  let id = idOfWritten.get(written);
  if (id === undefined) {
    const word = written.toLowerCase();
    if (STOP_WORDS.has(word) || (word.length < 2 && !/[0-9]/.test(word))) {
      id = -1;
    } else {
      const term = /^[a-z]+$/.test(word) && word.length > 2 ? porter2(word) : word;
      id = idOfTerm.get(term);
      if (id === undefined) {
        id = terms.length;
        terms.push(term);
        idOfTerm.set(term, id);
      }
    }
    idOfWritten.set(written, id);
  }
  return id;
}

/**
 * `termId(text.slice(start, end))` without the slice: an open-addressing table keyed by an FNV-1a hash
 * the tokenizer computes while scanning, and checked against the text in place. Most words of a tool
 * list have been seen before, so most lookups allocate nothing and make the engine hash nothing.
 */
const TABLE_BITS = 16;
const TABLE_MASK = (1 << TABLE_BITS) - 1;
let tableWords: Array<string | undefined> = new Array<string | undefined>(1 << TABLE_BITS);
const tableHashes = new Int32Array(1 << TABLE_BITS);
const tableIds = new Int32Array(1 << TABLE_BITS);
let tableCount = 0;

export function termIdAt(text: string, start: number, end: number, hash: number): number {
  const length = end - start;
  let slot = hash & TABLE_MASK;
  for (;;) {
    const word = tableWords[slot];
    if (word === undefined) break;
    if (tableHashes[slot] === hash && word.length === length && text.startsWith(word, start)) return tableIds[slot]!;
    slot = (slot + 1) & TABLE_MASK;
  }
  const word = text.slice(start, end);
  const id = termId(word);
  // Kept at most half full; when it would pass that, it starts again empty (it is only a shortcut).
  if (tableCount >= TABLE_MASK >> 1) {
    clearTable();
    return id;
  }
  tableWords[slot] = word;
  tableHashes[slot] = hash;
  tableIds[slot] = id;
  tableCount += 1;
  return id;
}

function clearTable(): void {
  tableWords = new Array<string | undefined>(1 << TABLE_BITS);
  tableCount = 0;
}

/** The term (stem) of an id from `termId` or `internTerm`. */
export function termOf(id: number): string {
  return terms[id]!;
}

/** The id of an already-final term (a CJK bigram, a whole "mp3"), not stemmed or filtered. */
export function internTerm(term: string): number {
  let id = idOfTerm.get(term);
  if (id === undefined) {
    id = terms.length;
    terms.push(term);
    idOfTerm.set(term, id);
  }
  return id;
}

/** Number of term ids in use (an upper bound for arrays indexed by id). */
export function vocabularySize(): number {
  return terms.length;
}

/** Drops the vocabulary when it is full; call only between analyses, since it invalidates ids. */
export function resetVocabularyIfFull(): void {
  if (idOfWritten.size < MAX_WORDS && terms.length < MAX_WORDS) return;
  idOfWritten.clear();
  idOfTerm.clear();
  terms.length = 0;
  clearTable();
}

/** The index term of a word as written: '' for a stop word or a lone letter, else its stem. */
export function indexTerm(written: string): string {
  const id = termId(written);
  return id < 0 ? '' : terms[id]!;
}
