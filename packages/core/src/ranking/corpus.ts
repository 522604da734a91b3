import type { ToolInfo } from '../schemas.js';
import { grownInt32 } from '../text/token-buffer.js';
import { knownTermId, resetVocabularyIfFull, vocabularyEpoch, vocabularySize } from '../text/stem.js';
import { FIELD_COUNT as FIELDS_TOTAL, FIELD_PARAMS, FIELDS } from './fields.js';
import { ToolAnalysisCache } from './rank-cache.js';
import { NO_NAME } from './name-key.js';
import { analyzeContents, type ToolAnalysis } from './tool-analysis.js';
import { toolContent, type ToolContent } from './tool-content.js';
import type { RankCache } from './types.js';

// A local copy: read in the innermost loops, where a cross-module binding can cost a call.
const FIELD_COUNT = FIELDS_TOTAL;

/**
 * The request's tool list as an inverted index: what scoring any query against it needs. The postings
 * of all terms sit in three flat arrays (term by term, tools ascending within a term), so that building
 * the index allocates a handful of arrays rather than three growing arrays per distinct term.
 */
export interface Corpus {
  readonly size: number;
  /** The vocabulary epoch of the term ids in `termSlots`. */
  readonly epoch: number;
  /**
   * Term id -> its posting number n, whose tools are `postingDocs[postingStart[n] .. postingStart[n + 1])`:
   * an open-addressing table of (term id, n) pairs, -1 for an empty slot; see postingOfTerm. Typed
   * arrays rather than a Map of term strings: a cold list has thousands of terms, and a Map grown to
   * hold them was a large share of the garbage its indexing made.
   */
  readonly termSlots: Int32Array;
  readonly postingStart: Int32Array;
  /** The tools that contain each term. */
  readonly postingDocs: Int32Array;
  /** BM25F pseudo term frequency per posting: Σ over fields of weight × tf / length normalisation. */
  readonly postingWeights: Float64Array;
  /** The best field the term occurs in (highest calibration quality), per posting. */
  readonly postingFields: Uint8Array;
  /**
   * Tool names and tool keys (`names`), their nameHash (`nameHashes`) and the tool each belongs to
   * (`nameDocs`), for the exact-name short-circuit. A list scanned per query rather than a Map: a
   * query has one to three candidate names, and comparing their hashes against a few thousand
   * numbers costs less than putting every tool's names into a Map on every cold request.
   */
  readonly names: readonly string[];
  readonly nameHashes: readonly number[];
  readonly nameDocs: readonly number[];
  /** Per tool: the index of its server (tools of one server share it). */
  readonly servers: Int32Array;
  readonly serverCount: number;
}

const FIELD_WEIGHTS = FIELDS.map((field) => FIELD_PARAMS[field].weight);
const FIELD_B = FIELDS.map((field) => FIELD_PARAMS[field].b);
const FIELD_QUALITY = FIELDS.map((field) => FIELD_PARAMS[field].quality);

/**
 * Analyses every tool (through the cache when one is given: by content, so a repeated tool is not
 * re-tokenized) and indexes the list (also cached: a repeated list, e.g. the same router's next
 * request or the next sub-query, is not re-indexed).
 */
export function buildCorpus(tools: readonly ToolInfo[], cache?: RankCache, maxDescriptionChars?: number): Corpus {
  const store = cache instanceof ToolAnalysisCache ? cache : undefined;
  // Once per list: the term ids of all its analyses must come from one vocabulary.
  resetVocabularyIfFull();
  const epoch = vocabularyEpoch();
  if (store === undefined) return indexAnalyses(analyzeContents(tools.map((tool) => toolContent(tool, maxDescriptionChars))));
  const analyses = new Array<ToolAnalysis>(tools.length);
  const seen = store.seenList(tools, maxDescriptionChars);
  const contents = new Array<ToolContent>(tools.length);
  // Tools not analysed yet (or only under an older vocabulary): analysed together, after the lookups.
  const missing: number[] = [];
  let allSeen = seen !== undefined;
  for (let i = 0; i < tools.length; i += 1) {
    const tool = tools[i]!;
    let content = seen?.contentOf(i, tool);
    if (content === undefined) {
      content = toolContent(tool, maxDescriptionChars);
      allSeen = false;
    }
    contents[i] = content;
    const analysis = store.get(content);
    if (analysis === undefined || analysis.epoch !== epoch) missing.push(i);
    else analyses[i] = analysis;
  }
  if (missing.length > 0) {
    const made = analyzeContents(missing.map((i) => contents[i]!));
    for (let k = 0; k < missing.length; k += 1) {
      analyses[missing[k]!] = made[k]!;
      store.set(contents[missing[k]!]!, made[k]!);
    }
  }
  if (!allSeen) store.rememberList(tools, maxDescriptionChars, contents);
  const cached = store.findCorpus(analyses);
  if (cached) return cached;
  const corpus = indexAnalyses(analyses);
  store.addCorpus(analyses, corpus);
  return corpus;
}

// Posting number per vocabulary id while a list is indexed (-1: not seen yet); reset afterwards.
let postingOfId = new Int32Array(4096).fill(-1);
// Scratch for indexing, reused from list to list (only the postings are kept): per (term, tool) pair
// its term number, weight and best field; per term number its tool count.
let pairTerm = new Int32Array(1 << 16);
let pairWeight = new Float64Array(1 << 16);
let pairField = new Uint8Array(1 << 16);
let docFreq = new Int32Array(1 << 14);

/** Indexes analyses made under the current vocabulary epoch (see buildCorpus). */
export function indexAnalyses(analyses: readonly ToolAnalysis[]): Corpus {
  const count = Math.max(analyses.length, 1);
  const avgLengths = new Array<number>(FIELD_COUNT).fill(0);
  let pairCount = 0;
  for (const { data, at, termCount } of analyses) {
    for (let f = 0; f < FIELD_COUNT; f += 1) avgLengths[f]! += data[at + f]! / count;
    pairCount += termCount;
  }
  if (postingOfId.length < vocabularySize()) postingOfId = new Int32Array(vocabularySize() * 2).fill(-1);
  // First pass, tool by tool: each (term, tool) pair's term number, weight and best field, and each
  // term's tool count. The second pass places the pairs term by term.
  if (pairTerm.length < pairCount) {
    pairTerm = new Int32Array(pairCount * 2);
    pairWeight = new Float64Array(pairCount * 2);
    pairField = new Uint8Array(pairCount * 2);
  }
  const termIdOfPosting: number[] = [];
  // Per tool and field: weight / (1 − b + b × length / average length), BM25F's length normalisation.
  const fieldFactors = new Array<number>(FIELD_COUNT);
  const names: string[] = [];
  const nameHashes: number[] = [];
  const nameDocs: number[] = [];
  const serverIds = new Map<string, number>();
  const servers = new Int32Array(analyses.length);
  let termWeights = new Float64Array(256);
  let termFields = new Int32Array(256);
  let pair = 0;
  for (let doc = 0; doc < analyses.length; doc += 1) {
    const analysis = analyses[doc]!;
    let server = serverIds.get(analysis.server);
    if (server === undefined) serverIds.set(analysis.server, (server = serverIds.size));
    servers[doc] = server;
    const { data, at, termCount, pairCount: toolPairs } = analysis;
    for (let f = 0; f < FIELD_COUNT; f += 1) {
      const avg = avgLengths[f]! || 1;
      fieldFactors[f] = FIELD_WEIGHTS[f]! / (1 - FIELD_B[f]! + (FIELD_B[f]! * data[at + f]!) / avg);
    }
    const idsAt = at + FIELD_COUNT;
    const pairsAt = idsAt + termCount;
    if (termCount > termWeights.length) {
      termWeights = new Float64Array(termCount * 2);
      termFields = new Int32Array(termCount * 2);
    }
    termWeights.fill(0, 0, termCount);
    termFields.fill(-1, 0, termCount);
    // Fields come ascending per term, so the sums add up in the same order as a dense field loop, and
    // the first field of the highest calibration quality wins a tie.
    for (let o = pairsAt; o < pairsAt + 2 * toolPairs; o += 2) {
      const t = data[o]! >> 3;
      const f = data[o]! & 7;
      termWeights[t]! += data[o + 1]! * fieldFactors[f]!;
      const best = termFields[t]!;
      if (best < 0 || FIELD_QUALITY[f]! > FIELD_QUALITY[best]!) termFields[t] = f;
    }
    for (let t = 0; t < termCount; t += 1) {
      const id = data[idsAt + t]!;
      let number = postingOfId[id]!;
      if (number < 0) {
        number = termIdOfPosting.length;
        postingOfId[id] = number;
        termIdOfPosting.push(id);
        if (number >= docFreq.length) docFreq = grownInt32(docFreq, number + 1);
      }
      docFreq[number]! += 1;
      pairTerm[pair] = number;
      pairWeight[pair] = termWeights[t]!;
      pairField[pair] = termFields[t]!;
      pair += 1;
    }
    if (analysis.nameHash !== NO_NAME) {
      names.push(analysis.toolName);
      nameHashes.push(analysis.nameHash);
      nameDocs.push(doc);
    }
    if (analysis.keyHash !== NO_NAME) {
      names.push(analysis.toolKey);
      nameHashes.push(analysis.keyHash);
      nameDocs.push(doc);
    }
  }
  const termCount = termIdOfPosting.length;
  const termSlots = termTable(termIdOfPosting);
  for (let n = 0; n < termCount; n += 1) postingOfId[termIdOfPosting[n]!] = -1;
  const postingStart = new Int32Array(termCount + 1);
  for (let n = 0; n < termCount; n += 1) postingStart[n + 1] = postingStart[n]! + docFreq[n]!;
  docFreq.fill(0, 0, termCount);
  const postingDocs = new Int32Array(pairCount);
  const postingWeights = new Float64Array(pairCount);
  const postingFields = new Uint8Array(pairCount);
  const next = postingStart.slice(0, termCount);
  pair = 0;
  for (let doc = 0; doc < analyses.length; doc += 1) {
    const end = pair + analyses[doc]!.termCount;
    for (; pair < end; pair += 1) {
      const at = next[pairTerm[pair]!]!;
      next[pairTerm[pair]!] = at + 1;
      postingDocs[at] = doc;
      postingWeights[at] = pairWeight[pair]!;
      postingFields[at] = pairField[pair]!;
    }
  }
  return {
    size: analyses.length,
    epoch: vocabularyEpoch(),
    termSlots,
    postingStart,
    postingDocs,
    postingWeights,
    postingFields,
    names,
    nameHashes,
    nameDocs,
    servers,
    serverCount: serverIds.size,
  };
}

/** Slot pairs (term id, posting number) for `ids[n] -> n`, in a power-of-two table at most half full. */
function termTable(ids: readonly number[]): Int32Array {
  let slots = 16;
  while (slots < ids.length * 2) slots *= 2;
  const table = new Int32Array(slots * 2).fill(-1);
  const mask = slots - 1;
  for (let n = 0; n < ids.length; n += 1) {
    let slot = hashId(ids[n]!) & mask;
    while (table[slot * 2] !== -1) slot = (slot + 1) & mask;
    table[slot * 2] = ids[n]!;
    table[slot * 2 + 1] = n;
  }
  return table;
}

// Ids are dense small integers: mixing them spreads neighbours over the table.
const hashId = (id: number): number => Math.imul(id, 0x9e3779b1) >>> 16;

/** The posting number of `term` in the corpus, or -1 when no tool contains it. */
export function postingOfTerm(corpus: Corpus, term: string): number {
  // The ids of a corpus hold while the vocabulary is the one it was built under; rankTools builds or
  // finds the corpus (renewing a full vocabulary first) and then scores, renewing nothing between.
  if (corpus.epoch !== vocabularyEpoch()) throw new Error('corpus used after the vocabulary was renewed');
  const id = knownTermId(term);
  if (id < 0) return -1;
  const table = corpus.termSlots;
  const mask = table.length / 2 - 1;
  for (let slot = hashId(id) & mask; ; slot = (slot + 1) & mask) {
    const held = table[slot * 2]!;
    if (held === id) return table[slot * 2 + 1]!;
    if (held === -1) return -1;
  }
}
