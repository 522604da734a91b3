import porter2 from 'wink-porter2-stemmer';

// Tool lists repeat the same few thousand words, so stemming each distinct word once is most of the
// tokenizer's speed. The memo is bounded: it holds only English word stems (no tool identity), and it
// is dropped whole when full rather than tracking recency, which is cheaper and good enough here.
const MAX_MEMO = 50_000;
const memo = new Map<string, string>();

/** Porter2 stem of a lowercase word; non-ASCII words (accented, Cyrillic, ...) are returned as they are. */
export function stem(word: string): string {
  let stemmed = memo.get(word);
  if (stemmed === undefined) {
    stemmed = /^[a-z]+$/.test(word) && word.length > 2 ? porter2(word) : word;
    if (memo.size >= MAX_MEMO) memo.clear();
    memo.set(word, stemmed);
  }
  return stemmed;
}
