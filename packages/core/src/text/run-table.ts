/**
 * Memo of written ASCII runs ("search", "getFileContents", "mp3") -> their term ids, so that the
 * tokenizer splits, lowercases and stems each distinct run once. Tool lists repeat the same few
 * thousand runs, so most lookups hit. It is an open-addressing table keyed by an FNV-1a hash that the
 * tokenizer computes while scanning, checked against the text in place: a hit allocates nothing and
 * makes the engine hash nothing. Ids are the vocabulary's (stem.ts), which clears this table whenever it
 * drops its ids. Holds words only, no tool identity.
 */
const BITS = 16;
const MASK = (1 << BITS) - 1;
// Kept at most half full; when it would pass that, it starts again empty (it is only a shortcut).
const MAX_COUNT = MASK >> 1;

let runs: Array<string | undefined> = new Array<string | undefined>(1 << BITS);
const hashes = new Int32Array(1 << BITS);
// A run of one term (most) stores its id here; a run of several (camelCase, letters+digits) stores
// MULTI and its ids in `idLists`. -1 means the run has no term (a stop word).
const ids = new Int32Array(1 << BITS);
let idLists: Array<readonly number[] | undefined> = new Array<readonly number[] | undefined>(1 << BITS);
let count = 0;
const MULTI = -2;

/** The slot holding `text.slice(start, end)`, or -1. */
export function findRun(text: string, start: number, end: number, hash: number): number {
  const length = end - start;
  let slot = hash & MASK;
  for (;;) {
    const run = runs[slot];
    if (run === undefined) return -1;
    if (hashes[slot] === hash && run.length === length && text.startsWith(run, start)) return slot;
    slot = (slot + 1) & MASK;
  }
}

/** Appends the term ids of the run in `slot` (from findRun) to `out`. */
export function appendRunIds(slot: number, out: number[]): void {
  const id = ids[slot]!;
  if (id >= 0) out.push(id);
  else if (id === MULTI) for (const each of idLists[slot]!) out.push(each);
}

/** Remembers that the run `text.slice(start, end)` gave the ids `produced.slice(from)`. */
export function rememberRun(text: string, start: number, end: number, hash: number, produced: readonly number[], from: number): void {
  if (count >= MAX_COUNT) clearRunTable();
  let slot = hash & MASK;
  while (runs[slot] !== undefined) slot = (slot + 1) & MASK;
  runs[slot] = text.slice(start, end);
  hashes[slot] = hash;
  const n = produced.length - from;
  if (n === 1) ids[slot] = produced[from]!;
  else if (n === 0) ids[slot] = -1;
  else {
    ids[slot] = MULTI;
    idLists[slot] = produced.slice(from);
  }
  count += 1;
}

export function clearRunTable(): void {
  runs = new Array<string | undefined>(1 << BITS);
  idLists = new Array<readonly number[] | undefined>(1 << BITS);
  count = 0;
}
