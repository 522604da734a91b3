import { grownInt32 } from '../text/token-buffer.js';
import type { Corpus } from './corpus.js';
import { FIELD_COUNT, FIELD_PARAMS, FIELDS } from './fields.js';

const FIELD_QUALITY = FIELDS.map((field) => FIELD_PARAMS[field].quality);

/**
 * Where a query's terms occur in a list: one match per (tool, term) pair that occurs, tool by tool and,
 * within a tool, by term index. `weights` is the term's field-weighted frequency tf' in the tool
 * (Σ over fields of the field's factor × count, see bm25f.ts), `fields` the best field it occurs in (the highest
 * calibration quality; the first one on a tie). The arrays are reused: valid until the next call.
 */
export interface TermMatches {
  count: number;
  docs: Int32Array;
  terms: Int32Array;
  weights: Float64Array;
  fields: Uint8Array;
  /** Per term: how many tools contain it. */
  docFreq: Int32Array;
}

const matches: TermMatches = {
  count: 0,
  docs: new Int32Array(1024),
  terms: new Int32Array(1024),
  weights: new Float64Array(1024),
  fields: new Uint8Array(1024),
  docFreq: new Int32Array(64),
};

// Per vocabulary id: its index among the query's terms, or -1. Set for one scan, then reset.
let termIndexOfId = new Int32Array(4096).fill(-1);
// Per (term index, field) of the tool being scanned: how often the term occurs there.
let counts = new Int32Array(64 * FIELD_COUNT);

/**
 * Finds `terms` (stems, distinct) in every tool's token stream (tool-analysis.ts). The first time a list
 * is searched, one pass over its tokens with a table lookup each: for the few terms of a query that
 * costs less than building an index of all the list's terms would. A list searched again (the rank
 * cache keeps prepared lists: the next sub-query, a router's next request, a list sent by reference)
 * gets its postings (see Postings), and then only the query terms' own positions are read.
 */
export function findTermMatches(corpus: Corpus, terms: readonly string[]): TermMatches {
  const { vocabulary } = corpus;
  const termCount = terms.length;
  if (termIndexOfId.length < vocabulary.size) termIndexOfId = grownInt32(termIndexOfId, vocabulary.size, -1);
  if (counts.length < termCount * FIELD_COUNT) counts = new Int32Array(termCount * FIELD_COUNT * 2);
  if (matches.docFreq.length < termCount) matches.docFreq = new Int32Array(termCount * 2);
  const docFreq = matches.docFreq;
  docFreq.fill(0, 0, termCount);
  matches.count = 0;
  const ids: number[] = [];
  for (let t = 0; t < termCount; t += 1) {
    const id = vocabulary.knownTermId(terms[t]!);
    // A term the vocabulary has never seen is in no tool.
    if (id < 0) continue;
    if (termIndexOfId[id]! < 0) ids.push(id);
    termIndexOfId[id] = t;
  }
  if (ids.length > 0) {
    let postings = postingsOf.get(corpus);
    if (postings === undefined) postingsOf.set(corpus, null);
    else if (postings === null) postingsOf.set(corpus, (postings = new Postings(corpus)));
    countMatches(corpus, termCount, postings ? postings.find(ids) : scan(corpus));
  }
  for (const id of ids) termIndexOfId[id] = -1;
  return matches;
}

// Positions in corpus.tokens where a query term occurs, ascending (valid until the next search).
let found = new Int32Array(1024);

/** One pass over the list's tokens collects where query terms occur (most tools contain none). */
function scan(corpus: Corpus): number {
  const { tokens } = corpus;
  const index = termIndexOfId;
  let foundCount = 0;
  for (let p = 0; p < tokens.length; p += 1) {
    if (index[tokens[p]!]! < 0) continue;
    if (foundCount === found.length) found = grownInt32(found, foundCount + 1);
    found[foundCount++] = p;
  }
  return foundCount;
}

/**
 * Per list scanned before: its postings, or null after its first scan. Weak: they live as long as the
 * list's corpus (the rank cache's, which counts their bytes through postingsBytes).
 */
const postingsOf = new WeakMap<Corpus, Postings | null>();

/**
 * Where each term occurs in a list: positions in `corpus.tokens`, grouped by term id (ascending) and
 * ascending within a term; 4 bytes per token. Made in two passes over the tokens (a counting sort by
 * term id), about what one scan costs; every later search of the list then reads only its terms'
 * positions (figures: docs/performance.md#a-lists-postings).
 */
class Postings {
  /** The distinct term ids of the list, ascending. */
  readonly #ids: Int32Array;
  /** Term `#ids[k]`'s positions are `#positions[#starts[k] .. #starts[k + 1])`. */
  readonly #starts: Int32Array;
  readonly #positions: Int32Array;

  constructor({ tokens, vocabulary }: Corpus) {
    if (countOfId.length < vocabulary.size) countOfId = new Int32Array(Math.max(vocabulary.size, countOfId.length * 2));
    let distinct = 0;
    for (let p = 0; p < tokens.length; p += 1) if (countOfId[tokens[p]!]!++ === 0) distinct += 1;
    this.#ids = new Int32Array(distinct);
    this.#starts = new Int32Array(distinct + 1);
    // countOfId becomes each id's next free slot in #positions, in id order.
    for (let id = 0, k = 0, start = 0; k < distinct; id += 1) {
      const idCount = countOfId[id]!;
      if (idCount === 0) continue;
      this.#ids[k] = id;
      this.#starts[k] = start;
      countOfId[id] = start;
      start += idCount;
      k += 1;
      this.#starts[k] = start;
    }
    this.#positions = new Int32Array(tokens.length);
    for (let p = 0; p < tokens.length; p += 1) this.#positions[countOfId[tokens[p]!]!++] = p;
    for (let k = 0; k < distinct; k += 1) countOfId[this.#ids[k]!] = 0;
  }

  get ids(): Int32Array {
    return this.#ids;
  }

  get bytes(): number {
    return this.#ids.byteLength + this.#starts.byteLength + this.#positions.byteLength;
  }

  /** Puts the positions of `ids` (distinct term ids) into `found`, ascending, and returns how many. */
  find(ids: readonly number[]): number {
    let foundCount = 0;
    for (const id of ids) {
      const k = this.#indexOf(id);
      if (k < 0) continue;
      const start = this.#starts[k]!;
      const end = this.#starts[k + 1]!;
      if (foundCount + end - start > found.length) found = grownInt32(found, foundCount + end - start);
      found.set(this.#positions.subarray(start, end), foundCount);
      foundCount += end - start;
    }
    if (ids.length > 1) found.subarray(0, foundCount).sort();
    return foundCount;
  }

  /** Where `id` is in #ids, or -1 (binary search). */
  #indexOf(id: number): number {
    let low = 0;
    let high = this.#ids.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const at = this.#ids[middle]!;
      if (at === id) return middle;
      if (at < id) low = middle + 1;
      else high = middle - 1;
    }
    return -1;
  }
}

// Per vocabulary id: its count while postings are made (all zero between makings).
let countOfId = new Int32Array(4096);

/**
 * The distinct term ids of a list, ascending: its postings' (made now if the list has none yet, and
 * kept for its next searches, so that they count in the rank cache's bytes as any postings do).
 */
export function listTermIds(corpus: Corpus): Int32Array {
  let postings = postingsOf.get(corpus);
  if (postings === undefined || postings === null) postingsOf.set(corpus, (postings = new Postings(corpus)));
  return postings.ids;
}

/** Bytes of the postings made for this list, if any (for the rank cache's accounting). */
export function postingsBytes(corpus: Corpus): number {
  return postingsOf.get(corpus)?.bytes ?? 0;
}

// The query terms (indices) the tool being counted has, in the order first seen; `termCounted[t]` is 1
// for them. A tool matches few of a request's terms, so its matches are made from these alone rather
// than from every term × field (docs/performance.md#a-tools-matched-terms).
let toolTerms = new Int32Array(64);
let toolTermCount = 0;
let termCounted = new Uint8Array(64);

/** Places each found position in its tool and field and counts it, tool by tool. */
function countMatches(corpus: Corpus, termCount: number, foundCount: number): void {
  const { tokens, toolStarts, fieldLengths, fieldFactors } = corpus;
  const index = termIndexOfId;
  if (toolTerms.length < termCount) {
    toolTerms = new Int32Array(termCount * 2);
    termCounted = new Uint8Array(termCount * 2);
  }
  let doc = -1;
  let docEnd = 0;
  for (let k = 0; k < foundCount; k += 1) {
    const p = found[k]!;
    if (p >= docEnd) {
      if (doc >= 0) addMatches(doc, fieldFactors);
      doc += 1;
      while (toolStarts[doc + 1]! <= p) doc += 1;
      docEnd = toolStarts[doc + 1]!;
    }
    let field = 0;
    let fieldEnd = toolStarts[doc]! + fieldLengths[doc * FIELD_COUNT]!;
    while (p >= fieldEnd) fieldEnd += fieldLengths[doc * FIELD_COUNT + ++field]!;
    const t = index[tokens[p]!]!;
    if (termCounted[t] === 0) {
      termCounted[t] = 1;
      toolTerms[toolTermCount++] = t;
    }
    counts[t * FIELD_COUNT + field]! += 1;
  }
  if (doc >= 0) addMatches(doc, fieldFactors);
}

/** Turns the counts of the tool just scanned into matches, term index ascending, and clears them. */
function addMatches(doc: number, fieldFactors: Float64Array): void {
  // Insertion sort: a tool has a few of the terms, and a sorted subarray would be an object per tool.
  for (let k = 1; k < toolTermCount; k += 1) {
    const t = toolTerms[k]!;
    let j = k - 1;
    for (; j >= 0 && toolTerms[j]! > t; j -= 1) toolTerms[j + 1] = toolTerms[j]!;
    toolTerms[j + 1] = t;
  }
  for (let k = 0; k < toolTermCount; k += 1) {
    const t = toolTerms[k]!;
    termCounted[t] = 0;
    let weight = 0;
    let best = -1;
    for (let f = 0; f < FIELD_COUNT; f += 1) {
      const count = counts[t * FIELD_COUNT + f]!;
      if (count === 0) continue;
      counts[t * FIELD_COUNT + f] = 0;
      weight += count * fieldFactors[doc * FIELD_COUNT + f]!;
      if (best < 0 || FIELD_QUALITY[f]! > FIELD_QUALITY[best]!) best = f;
    }
    matches.docFreq[t]! += 1;
    push(doc, t, weight, best);
  }
  toolTermCount = 0;
}

function push(doc: number, term: number, weight: number, field: number): void {
  const at = matches.count;
  if (at === matches.docs.length) {
    matches.docs = grownInt32(matches.docs, at + 1);
    matches.terms = grownInt32(matches.terms, at + 1);
    const weights = new Float64Array(at * 2);
    weights.set(matches.weights);
    matches.weights = weights;
    const fields = new Uint8Array(at * 2);
    fields.set(matches.fields);
    matches.fields = fields;
  }
  matches.docs[at] = doc;
  matches.terms[at] = term;
  matches.weights[at] = weight;
  matches.fields[at] = field;
  matches.count = at + 1;
}
