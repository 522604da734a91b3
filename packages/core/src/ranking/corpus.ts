import type { ToolInfo } from '../schemas.js';
import { processVocabulary, type Vocabulary } from '../text/vocabulary.js';
import { fieldFactor } from './bm25f.js';
import { FIELD_COUNT, FIELD_PARAMS, FIELDS } from './fields.js';
import { NO_NAME } from './name-key.js';
import { analyzeContents, type ToolAnalysis } from './tool-analysis.js';
import { ToolReader } from './tool-reader.js';

/**
 * The request's tool list, ready to score queries against: each tool's token stream (its analysis)
 * with, per tool and field, BM25F's length-normalised field weight. Scoring scans the streams for the
 * query's terms (term-matches.ts); there is no inverted index to build.
 */
export interface Corpus {
  readonly size: number;
  /** The vocabulary the term ids are of: scoring reads the request in it. */
  readonly vocabulary: Vocabulary;
  /** The vocabulary epoch of the analyses' term ids: once the vocabulary has another, they no longer hold. */
  readonly epoch: number;
  /**
   * All tools' tokens (vocabulary ids), tool after tool and, within a tool, field after field (FIELDS
   * order): tool `doc`'s are `tokens[toolStarts[doc] .. toolStarts[doc + 1])`, `fieldLengths[doc *
   * FIELD_COUNT + f]` of them in field f. One array, so that scoring scans the list in one tight loop.
   */
  readonly tokens: Int32Array;
  readonly toolStarts: Int32Array;
  readonly fieldLengths: Int32Array;
  /**
   * Per tool and field (`tool * FIELD_COUNT + field`): BM25F's fieldFactor (bm25f.ts), what one
   * occurrence of a term in that field adds to the tool's field-weighted term frequency.
   */
  readonly fieldFactors: Float64Array;
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
  /**
   * The tools grouped by server, in list order within a server: server `s`'s are
   * `serverTools[serverStarts[s] .. serverStarts[s + 1])`. Server affinity reads a matched server's
   * other tools from here rather than scanning the list on every sub-query.
   */
  readonly serverTools: Int32Array;
  readonly serverStarts: Int32Array;
}

const FIELD_WEIGHTS = FIELDS.map((field) => FIELD_PARAMS[field].weight);
const FIELD_B = FIELDS.map((field) => FIELD_PARAMS[field].b);

/**
 * What buildCorpus needs from a cache; rank-cache.ts has the one implementation (the public RankCache).
 * Keep one per project: what it holds is derived from a project's own tool lists.
 */
export interface CorpusCache {
  /** The project's own vocabulary: its lists' words, renewed only by what the project itself sends. */
  readonly vocabulary: Vocabulary;
  /**
   * Each tool's analysis under vocabulary `epoch`: the cached one when the tool reads exactly as the
   * tool it was made from (see ToolRecord), else one made now (and kept).
   */
  analysesOf(
    tools: readonly ToolInfo[],
    maxDescriptionChars: number | undefined,
    epoch: number,
  ): readonly ToolAnalysis[];
  /** The corpus prepared from exactly these analyses (the same objects, in order), made now if not held. */
  corpusOf(analyses: readonly ToolAnalysis[]): Corpus;
}

/**
 * Analyses every tool (through the cache when one is given, so that a tool seen before is not
 * re-tokenized) and prepares the list for scoring (also cached: a repeated list, e.g. the same
 * router's next request or the next sub-query, is not prepared again).
 */
export function buildCorpus(
  tools: readonly ToolInfo[],
  cache: CorpusCache | undefined,
  maxDescriptionChars?: number,
  renew = true,
): Corpus {
  const vocabulary = cache?.vocabulary ?? processVocabulary;
  // Once per list: the term ids of all its analyses must come from one vocabulary.
  if (renew) vocabulary.resetIfFull();
  if (cache !== undefined) return cache.corpusOf(cache.analysesOf(tools, maxDescriptionChars, vocabulary.epoch));
  const reader = new ToolReader();
  const contents = tools.map((tool) => reader.content(tool, maxDescriptionChars));
  return corpusOf(analyzeContents(contents, vocabulary), vocabulary);
}

/**
 * Analyses a list into `cache` a `chunk` of tools at a time, pausing after each, ahead of buildCorpus
 * (called after it with `renew` false, it finds them analysed). Stops after a chunk that added no
 * analysis: a list seen before costs one chunk's lookups, not a second pass. The vocabulary is renewed
 * (if full) once, before the list, as buildCorpus does; if another search of the project renews it
 * while this one is paused, buildCorpus analyses again what is stale.
 */
export function* analyseInSteps(
  tools: readonly ToolInfo[],
  cache: CorpusCache & { readonly analysed: number },
  chunk: number,
  maxDescriptionChars?: number,
): Generator<void, void, void> {
  const { vocabulary } = cache;
  vocabulary.resetIfFull();
  for (let at = 0; at + chunk < tools.length; at += chunk) {
    const before = cache.analysed;
    cache.analysesOf(tools.slice(at, at + chunk), maxDescriptionChars, vocabulary.epoch);
    if (cache.analysed === before) return;
    yield;
  }
}

/** Prepares analyses made under `vocabulary`'s current epoch for scoring (see buildCorpus). */
export function corpusOf(analyses: readonly ToolAnalysis[], vocabulary: Vocabulary): Corpus {
  const count = Math.max(analyses.length, 1);
  const avgLengths = new Array<number>(FIELD_COUNT).fill(0);
  for (const { fieldLengths, lengthsAt } of analyses) {
    for (let f = 0; f < FIELD_COUNT; f += 1) avgLengths[f]! += fieldLengths[lengthsAt + f]! / count;
  }
  const fieldFactors = new Float64Array(analyses.length * FIELD_COUNT);
  const fieldLengths = new Int32Array(analyses.length * FIELD_COUNT);
  const { tokens, toolStarts } = tokenStream(analyses);
  const names: string[] = [];
  const nameHashes: number[] = [];
  const nameDocs: number[] = [];
  const serverIds = new Map<string, number>();
  const servers = new Int32Array(analyses.length);
  let lastServer: string | undefined;
  let server = -1;
  for (let doc = 0; doc < analyses.length; doc += 1) {
    const analysis = analyses[doc]!;
    // Lists keep a server's tools together: most tools have the server of the one before.
    if (analysis.server !== lastServer) {
      lastServer = analysis.server;
      const known = serverIds.get(lastServer);
      if (known === undefined) serverIds.set(lastServer, (server = serverIds.size));
      else server = known;
    }
    servers[doc] = server;
    const { fieldLengths: lengths, lengthsAt } = analysis;
    for (let f = 0; f < FIELD_COUNT; f += 1) {
      const length = lengths[lengthsAt + f]!;
      const avg = avgLengths[f]! || 1;
      fieldFactors[doc * FIELD_COUNT + f] = fieldFactor(FIELD_WEIGHTS[f]!, FIELD_B[f]!, length, avg);
      fieldLengths[doc * FIELD_COUNT + f] = length;
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
  const { serverTools, serverStarts } = toolsByServer(servers, serverIds.size);
  return {
    size: analyses.length,
    vocabulary,
    epoch: vocabulary.epoch,
    tokens,
    toolStarts,
    fieldLengths,
    fieldFactors,
    names,
    nameHashes,
    nameDocs,
    servers,
    serverCount: serverIds.size,
    serverTools,
    serverStarts,
  };
}

/** The tools grouped by server, list order kept (a counting sort; see Corpus.serverTools). */
function toolsByServer(
  servers: Int32Array,
  serverCount: number,
): { serverTools: Int32Array; serverStarts: Int32Array } {
  const serverStarts = new Int32Array(serverCount + 1);
  for (const server of servers) serverStarts[server + 1]! += 1;
  for (let s = 0; s < serverCount; s += 1) serverStarts[s + 1]! += serverStarts[s]!;
  const next = serverStarts.slice(0, serverCount);
  const serverTools = new Int32Array(servers.length);
  for (let doc = 0; doc < servers.length; doc += 1) serverTools[next[servers[doc]!]!++] = doc;
  return { serverTools, serverStarts };
}

/**
 * The analyses' tokens as one array, and where each tool's start. The analyses of a new list, made
 * together, already are one stream in their shared array, which is used as it is; a list mixing
 * cached and new analyses is copied together.
 */
function tokenStream(analyses: readonly ToolAnalysis[]): { tokens: Int32Array; toolStarts: Int32Array } {
  const toolStarts = new Int32Array(analyses.length + 1);
  const first = analyses[0];
  if (first === undefined) return { tokens: new Int32Array(0), toolStarts };
  let contiguous = true;
  let total = 0;
  for (let doc = 0; doc < analyses.length; doc += 1) {
    const analysis = analyses[doc]!;
    if (analysis.tokens !== first.tokens || analysis.tokenStart !== first.tokenStart + total) contiguous = false;
    total += analysis.tokenCount;
    toolStarts[doc + 1] = total;
  }
  if (contiguous) return { tokens: first.tokens.subarray(first.tokenStart, first.tokenStart + total), toolStarts };
  const tokens = new Int32Array(total);
  for (let doc = 0; doc < analyses.length; doc += 1) {
    const { tokens: source, tokenStart, tokenCount } = analyses[doc]!;
    tokens.set(source.subarray(tokenStart, tokenStart + tokenCount), toolStarts[doc]!);
  }
  return { tokens, toolStarts };
}
