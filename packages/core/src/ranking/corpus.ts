import type { ToolInfo } from '../schemas.js';
import { FIELD_COUNT as FIELDS_TOTAL, FIELD_PARAMS, FIELDS } from './fields.js';
import { ToolAnalysisCache } from './rank-cache.js';
import { analyzeContent, contentOfKey, toolContentKey, type ToolAnalysis } from './tool-analysis.js';
import type { RankCache } from './types.js';

// A local copy: read in the innermost loops, where a cross-module binding can cost a call.
const FIELD_COUNT = FIELDS_TOTAL;

/** The tools that contain one term, with what BM25F needs per tool, precomputed for this list. */
export interface Posting {
  readonly docs: number[];
  /** BM25F pseudo term frequency: Σ over fields of weight × tf / length normalisation. */
  readonly weights: number[];
  /** The best field the term occurs in (highest calibration quality), per tool. */
  readonly fields: number[];
}

/** The request's tool list as an inverted index: what scoring any query against it needs. */
export interface Corpus {
  readonly size: number;
  readonly postings: ReadonlyMap<string, Posting>;
  /** Normalised tool name / tool key -> tools, for the exact-name short-circuit. */
  readonly names: ReadonlyMap<string, number[]>;
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
  const analyses = new Array<ToolAnalysis>(tools.length);
  for (let i = 0; i < tools.length; i += 1) {
    const tool = tools[i]!;
    let key = store?.seenKey(tool, maxDescriptionChars);
    if (key === undefined) {
      key = toolContentKey(tool, maxDescriptionChars);
      if (typeof tool === 'object' && tool !== null) store?.rememberKey(tool, maxDescriptionChars, key);
    }
    let analysis = store?.get(key);
    if (analysis === undefined) {
      analysis = analyzeContent(contentOfKey(key));
      store?.set(key, analysis);
    }
    analyses[i] = analysis;
  }
  const cached = store?.findCorpus(analyses);
  if (cached) return cached;
  const corpus = indexAnalyses(analyses);
  store?.addCorpus(analyses, corpus);
  return corpus;
}

export function indexAnalyses(analyses: readonly ToolAnalysis[]): Corpus {
  const count = Math.max(analyses.length, 1);
  const avgLengths = new Array<number>(FIELD_COUNT).fill(0);
  for (const analysis of analyses) for (let f = 0; f < FIELD_COUNT; f += 1) avgLengths[f]! += analysis.lengths[f]! / count;
  // Per tool and field: weight / (1 − b + b × length / average length), BM25F's length normalisation.
  const fieldFactors = new Array<number>(FIELD_COUNT);
  const postings = new Map<string, Posting>();
  const names = new Map<string, number[]>();
  const serverIds = new Map<string, number>();
  const servers = new Int32Array(analyses.length);
  let termWeights = new Float64Array(256);
  let termFields = new Int32Array(256);
  for (let doc = 0; doc < analyses.length; doc += 1) {
    const analysis = analyses[doc]!;
    let server = serverIds.get(analysis.server);
    if (server === undefined) serverIds.set(analysis.server, (server = serverIds.size));
    servers[doc] = server;
    for (let f = 0; f < FIELD_COUNT; f += 1) {
      const avg = avgLengths[f]! || 1;
      fieldFactors[f] = FIELD_WEIGHTS[f]! / (1 - FIELD_B[f]! + (FIELD_B[f]! * analysis.lengths[f]!) / avg);
    }
    const { terms, occurrences } = analysis;
    if (terms.length > termWeights.length) {
      termWeights = new Float64Array(terms.length * 2);
      termFields = new Int32Array(terms.length * 2);
    }
    termWeights.fill(0, 0, terms.length);
    termFields.fill(-1, 0, terms.length);
    // Fields come ascending per term, so the sums add up in the same order as a dense field loop, and
    // the first field of the highest calibration quality wins a tie.
    for (let o = 0; o < occurrences.length; o += 3) {
      const t = occurrences[o]!;
      const f = occurrences[o + 1]!;
      termWeights[t]! += occurrences[o + 2]! * fieldFactors[f]!;
      const best = termFields[t]!;
      if (best < 0 || FIELD_QUALITY[f]! > FIELD_QUALITY[best]!) termFields[t] = f;
    }
    for (let t = 0; t < terms.length; t += 1) {
      const term = terms[t]!;
      let posting = postings.get(term);
      if (posting === undefined) postings.set(term, (posting = { docs: [], weights: [], fields: [] }));
      posting.docs.push(doc);
      posting.weights.push(termWeights[t]!);
      posting.fields.push(termFields[t]!);
    }
    for (const key of analysis.nameKeys) {
      const list = names.get(key);
      if (list === undefined) names.set(key, [doc]);
      else list.push(doc);
    }
  }
  return { size: analyses.length, postings, names, servers, serverCount: serverIds.size };
}
