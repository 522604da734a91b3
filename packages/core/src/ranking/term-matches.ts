import { vocabulary } from '../text/vocabulary.js';
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
 * Scans every tool's token stream (tool-analysis.ts) for `terms` (stems, distinct). One pass over the
 * list's tokens with a table lookup each: for the few terms of a query that costs less than building
 * an inverted index of all the list's terms would.
 */
export function findTermMatches(corpus: Corpus, terms: readonly string[]): TermMatches {
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
    termIndexOfId[id] = t;
    ids.push(id);
  }
  if (ids.length > 0) scan(corpus, termCount);
  for (const id of ids) termIndexOfId[id] = -1;
  return matches;
}

// Positions in corpus.tokens where a query term occurs, in the scan's order.
let found = new Int32Array(1024);

/**
 * One pass over the list's tokens collects where query terms occur (most tools contain none); then
 * each such position is placed in its tool and field and counted, tool by tool.
 */
function scan(corpus: Corpus, termCount: number): void {
  const { tokens, toolStarts, fieldLengths, fieldFactors } = corpus;
  const index = termIndexOfId;
  let foundCount = 0;
  for (let p = 0; p < tokens.length; p += 1) {
    if (index[tokens[p]!]! < 0) continue;
    if (foundCount === found.length) found = grownInt32(found, foundCount + 1);
    found[foundCount++] = p;
  }
  let doc = -1;
  let docEnd = 0;
  for (let k = 0; k < foundCount; k += 1) {
    const p = found[k]!;
    if (p >= docEnd) {
      if (doc >= 0) addMatches(doc, fieldFactors, termCount);
      doc += 1;
      while (toolStarts[doc + 1]! <= p) doc += 1;
      docEnd = toolStarts[doc + 1]!;
    }
    let field = 0;
    let fieldEnd = toolStarts[doc]! + fieldLengths[doc * FIELD_COUNT]!;
    while (p >= fieldEnd) fieldEnd += fieldLengths[doc * FIELD_COUNT + ++field]!;
    counts[index[tokens[p]!]! * FIELD_COUNT + field]! += 1;
  }
  if (doc >= 0) addMatches(doc, fieldFactors, termCount);
}

/** Turns the counts of the tool just scanned into matches, and clears them. */
function addMatches(doc: number, fieldFactors: Float64Array, termCount: number): void {
  for (let t = 0; t < termCount; t += 1) {
    let weight = 0;
    let best = -1;
    for (let f = 0; f < FIELD_COUNT; f += 1) {
      const count = counts[t * FIELD_COUNT + f]!;
      if (count === 0) continue;
      counts[t * FIELD_COUNT + f] = 0;
      weight += count * fieldFactors[doc * FIELD_COUNT + f]!;
      if (best < 0 || FIELD_QUALITY[f]! > FIELD_QUALITY[best]!) best = f;
    }
    if (best < 0) continue;
    matches.docFreq[t]! += 1;
    push(doc, t, weight, best);
  }
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
