import type { TypoMemo } from '../everyday/typos.js';
import type { Corpus } from './corpus.js';

// Words remembered per list: a few requests' unknown words, not every word a project ever sent.
const MAX_WORDS = 256;
// Bytes an entry costs besides its strings' characters (a Map entry, an array, string headers).
const ENTRY_BYTES = 96;

/** One prepared list's typo guesses, the oldest word out first; its bytes counted as they grow. */
class ListTypoMemo implements TypoMemo {
  readonly #guesses = new Map<string, readonly string[]>();
  bytes = 0;

  get(key: string): readonly string[] | undefined {
    return this.#guesses.get(key);
  }

  set(key: string, candidates: readonly string[]): void {
    if (this.#guesses.size >= MAX_WORDS) {
      const [oldest, held] = this.#guesses.entries().next().value as [string, readonly string[]];
      this.#guesses.delete(oldest);
      this.bytes -= entryBytes(oldest, held);
    }
    this.#guesses.set(key, candidates);
    this.bytes += entryBytes(key, candidates);
  }
}

function entryBytes(key: string, candidates: readonly string[]): number {
  return ENTRY_BYTES + 2 * key.length + candidates.reduce((sum, term) => sum + 16 + 2 * term.length, 0);
}

// Per prepared list, held as long as the list is (the rank cache counts the bytes: typoMemoBytes).
const memos = new WeakMap<Corpus, ListTypoMemo>();

/** The typo guesses remembered for this list, made on first need. */
export function typoMemoOf(corpus: Corpus): TypoMemo {
  let memo = memos.get(corpus);
  if (memo === undefined) memos.set(corpus, (memo = new ListTypoMemo()));
  return memo;
}

/** Bytes of the typo guesses remembered for this list, if any (for the rank cache's accounting). */
export function typoMemoBytes(corpus: Corpus): number {
  return memos.get(corpus)?.bytes ?? 0;
}
