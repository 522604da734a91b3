import porter2 from 'wink-porter2-stemmer';
import { STOP_WORDS } from './stop-words.js';

// Tool lists repeat the same few thousand words, so stemming each distinct word once is most of the
// tokenizer's speed. The memo is bounded: it holds only word -> stem (no tool identity), and it is
// dropped whole when full rather than tracking recency, which is cheaper and good enough here.
const MAX_MEMO = 50_000;
const memo = new Map<string, string>();

/**
 * The index term of a lowercase word: '' for a stop word or a lone letter, else its Porter2 stem
 * (non-ASCII words, accented or Cyrillic for instance, are kept as they are).
 */
export function indexTerm(word: string): string {
  let term = memo.get(word);
  if (term === undefined) {
    if (STOP_WORDS.has(word) || (word.length < 2 && !/[0-9]/.test(word))) term = '';
    else term = /^[a-z]+$/.test(word) && word.length > 2 ? porter2(word) : word;
    if (memo.size >= MAX_MEMO) memo.clear();
    memo.set(word, term);
  }
  return term;
}
