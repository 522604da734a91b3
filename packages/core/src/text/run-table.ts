/**
 * Memo of written ASCII runs ("search", "getFileContents", "mp3") -> their term ids, so that the
 * tokenizer splits, lowercases and stems each distinct run once. Tool lists repeat the same few
 * thousand runs, so most lookups hit. It is an open-addressing table keyed by an FNV-1a hash that the
 * tokenizer computes while scanning, checked against the text in place: a hit allocates nothing and
 * makes the engine hash nothing. Ids are the vocabulary's (stem.ts), which clears this table whenever it
 * drops its ids. Holds words only, no tool identity.
 *
 * Layout is for the CPU cache: a lookup is one random access per word of a tool list, so each slot's
 * hash, id and where its characters are sit side by side in one typed array, and the characters of all
 * runs sit together in one pool, rather than in strings scattered over the heap.
 */
const BITS = 15;
const SLOTS = 1 << BITS;
const MASK = SLOTS - 1;
// Kept at most half full; when it would pass that, it starts again empty (it is only a shortcut).
const MAX_COUNT = SLOTS >> 1;
// Per slot: hash, id, offset of the characters in `pool`, length (0 = empty slot).
const HASH = 0;
const ID = 1;
const OFFSET = 2;
const LENGTH = 3;
const WIDTH = 4;

const slots = new Int32Array(SLOTS * WIDTH);
let pool = new Uint16Array(1 << 16);
let poolUsed = 0;
// A run of one term (most) stores its id; a run of several (camelCase, letters+digits) stores MULTI
// and its ids in `idLists`. -1 means the run has no term (a stop word).
let idLists: Array<readonly number[] | undefined> = [];
let count = 0;
const MULTI = -2;

/** The slot holding `text.slice(start, end)`, or -1. */
export function findRun(text: string, start: number, end: number, hash: number): number {
  const length = end - start;
  let slot = hash & MASK;
  for (;;) {
    const at = slot * WIDTH;
    const slotLength = slots[at + LENGTH]!;
    if (slotLength === 0) return -1;
    if (slots[at + HASH] === hash && slotLength === length && samePoolText(text, start, slots[at + OFFSET]!, length)) return slot;
    slot = (slot + 1) & MASK;
  }
}

function samePoolText(text: string, start: number, offset: number, length: number): boolean {
  for (let k = 0; k < length; k += 1) if (text.charCodeAt(start + k) !== pool[offset + k]) return false;
  return true;
}

/** Appends the term ids of the run in `slot` (from findRun) to `out`. */
export function appendRunIds(slot: number, out: number[]): void {
  const id = slots[slot * WIDTH + ID]!;
  if (id >= 0) out.push(id);
  else if (id === MULTI) for (const each of idLists[slot]!) out.push(each);
}

/** Remembers that the run `text.slice(start, end)` gave the ids `produced.slice(from)`. */
export function rememberRun(text: string, start: number, end: number, hash: number, produced: readonly number[], from: number): void {
  const length = end - start;
  if (length === 0) return;
  if (count >= MAX_COUNT) clearRunTable();
  if (poolUsed + length > pool.length) {
    const grown = new Uint16Array(Math.max(pool.length * 2, poolUsed + length));
    grown.set(pool.subarray(0, poolUsed));
    pool = grown;
  }
  let slot = hash & MASK;
  while (slots[slot * WIDTH + LENGTH] !== 0) slot = (slot + 1) & MASK;
  const at = slot * WIDTH;
  for (let k = 0; k < length; k += 1) pool[poolUsed + k] = text.charCodeAt(start + k);
  slots[at + HASH] = hash;
  slots[at + OFFSET] = poolUsed;
  slots[at + LENGTH] = length;
  poolUsed += length;
  const n = produced.length - from;
  if (n === 1) slots[at + ID] = produced[from]!;
  else if (n === 0) slots[at + ID] = -1;
  else {
    slots[at + ID] = MULTI;
    idLists[slot] = produced.slice(from);
  }
  count += 1;
}

export function clearRunTable(): void {
  slots.fill(0);
  idLists = [];
  poolUsed = 0;
  count = 0;
}
