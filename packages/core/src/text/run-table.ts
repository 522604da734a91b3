// Memo of written ASCII runs ("search", "getFileContents", "mp3") -> their term ids, so that the
// tokenizer splits, lowercases and stems each distinct run once. Tool lists repeat the same few
// thousand runs, so most lookups hit. It is an open-addressing table keyed by the FNV-1a hash (fnv.ts) that the
// tokenizer computes while scanning, checked against the text in place: a hit allocates nothing and
// makes the engine hash nothing. Ids are the vocabulary's (vocabulary.ts). Holds words only, no tool identity.
//
// Layout is for the CPU cache: a lookup is one or two random memory accesses per word of a tool list,
// and a cache miss costs more than the rest of the lookup. So each slot's hash, id and where its
// characters are sit side by side in one typed array; the characters of all runs sit together in one
// byte pool (runs here are ASCII); and the table starts small and doubles as it fills, so that a list's
// few thousand runs take a table that stays in the CPU's cache rather than one sized for the largest.
import type { TokenBuffer } from './token-buffer.js';

// Small: every project has its own table (vocabulary.ts), and most projects' lists are short.
const MIN_BITS = 10;
const MAX_BITS = 17;
const MIN_POOL = 1 << 12;
// Per slot: hash, id, offset of the characters in `pool`, length (0 = empty slot).
const HASH = 0;
const ID = 1;
const OFFSET = 2;
const LENGTH = 3;
const WIDTH = 4;
// The ID of a run with no term (a stop word). A run of several terms (camelCase, letters+digits)
// stores -(2 + n), its ids being idLists[n].
const NO_TERM = -1;
/**
 * Runs longer than this are not remembered: real words and identifiers are far shorter, and the pool
 * keeps every remembered run's characters until the table is cleared, so 65,536 hostile runs of
 * 2,000 letters would have held 130 MB.
 */
const MAX_REMEMBERED_RUN = 64;

/** One per vocabulary (vocabulary.ts), which clears it whenever it drops its ids. */
export class RunTable {
  #bits = MIN_BITS;
  #mask = (1 << MIN_BITS) - 1;
  #slots = new Int32Array((1 << MIN_BITS) * WIDTH);
  #pool = new Uint8Array(MIN_POOL);
  #poolUsed = 0;
  #idLists: Array<readonly number[]> = [];
  #count = 0;

  /** The slot holding the run `bytes[start .. end)` (ASCII) with FNV-1a `hash`, or -1. */
  find(bytes: Uint8Array, start: number, end: number, hash: number): number {
    const length = end - start;
    const slots = this.#slots;
    const mask = this.#mask;
    let slot = hash & mask;
    for (;;) {
      const at = slot * WIDTH;
      const slotLength = slots[at + LENGTH]!;
      if (slotLength === 0) return -1;
      if (
        slots[at + HASH] === hash &&
        slotLength === length &&
        this.#samePoolBytes(bytes, start, slots[at + OFFSET]!, length)
      )
        return slot;
      slot = (slot + 1) & mask;
    }
  }

  #samePoolBytes(bytes: Uint8Array, start: number, offset: number, length: number): boolean {
    const pool = this.#pool;
    for (let k = 0; k < length; k += 1) if (bytes[start + k] !== pool[offset + k]) return false;
    return true;
  }

  /** Appends the term ids of the run in `slot` (from find) to `out`. */
  appendIds(slot: number, out: TokenBuffer): void {
    const id = this.#slots[slot * WIDTH + ID]!;
    if (id >= 0) out.push(id);
    else if (id !== NO_TERM) for (const each of this.#idLists[-id - 2]!) out.push(each);
  }

  /** Remembers that the ASCII run `bytes[start .. end)` gave the ids `produced` holds from `from` on. */
  remember(bytes: Uint8Array, start: number, end: number, hash: number, produced: TokenBuffer, from: number): void {
    const length = end - start;
    if (length === 0 || length > MAX_REMEMBERED_RUN) return;
    if (this.#count >= 1 << (this.#bits - 1)) {
      if (this.#bits < MAX_BITS) this.#grow();
      else this.clear();
    }
    const used = this.#poolUsed;
    if (used + length > this.#pool.length) {
      const grown = new Uint8Array(Math.max(this.#pool.length * 2, used + length));
      grown.set(this.#pool.subarray(0, used));
      this.#pool = grown;
    }
    const pool = this.#pool;
    // A loop rather than set(subarray): runs are short, and a subarray is an object per new run.
    for (let k = 0; k < length; k += 1) pool[used + k] = bytes[start + k]!;
    const n = produced.length - from;
    let id = NO_TERM;
    if (n === 1) id = produced.ids[from]!;
    else if (n > 1) {
      id = -(2 + this.#idLists.length);
      this.#idLists.push(produced.toArray(from));
    }
    this.#place(hash, id, used, length);
    this.#poolUsed = used + length;
    this.#count += 1;
  }

  #place(hash: number, id: number, offset: number, length: number): void {
    const slots = this.#slots;
    const mask = this.#mask;
    let slot = hash & mask;
    while (slots[slot * WIDTH + LENGTH] !== 0) slot = (slot + 1) & mask;
    const at = slot * WIDTH;
    slots[at + HASH] = hash;
    slots[at + ID] = id;
    slots[at + OFFSET] = offset;
    slots[at + LENGTH] = length;
  }

  /** Doubles the table, keeping every run (kept at most half full, so probes stay short). */
  #grow(): void {
    const old = this.#slots;
    this.#bits += 1;
    this.#mask = (1 << this.#bits) - 1;
    this.#slots = new Int32Array((1 << this.#bits) * WIDTH);
    for (let at = 0; at < old.length; at += WIDTH) {
      if (old[at + LENGTH] !== 0) this.#place(old[at + HASH]!, old[at + ID]!, old[at + OFFSET]!, old[at + LENGTH]!);
    }
  }

  /** Approximate bytes held: the slots, the characters' pool and the id lists of multi-term runs. */
  get bytes(): number {
    return this.#slots.byteLength + this.#pool.byteLength + 48 * this.#idLists.length;
  }

  clear(): void {
    this.#bits = MIN_BITS;
    this.#mask = (1 << MIN_BITS) - 1;
    this.#slots = new Int32Array((1 << MIN_BITS) * WIDTH);
    this.#pool = new Uint8Array(MIN_POOL);
    this.#idLists = [];
    this.#poolUsed = 0;
    this.#count = 0;
  }
}
