import { analyzeQuery, type QueryTerms } from '../text/tokenize.js';
import { calibrationIdf, EXACT_RELEVANCE, relevanceFromCoverage } from './calibrate.js';
import type { Corpus } from './corpus.js';
import { scoreReadings } from './readings-score.js';
import { applyEverydayRules } from './everyday-rules.js';
import type { ToolInfo } from '../schemas.js';
import type { RuleFamily } from '../everyday/rule-families.js';
import { findTermMatches, listTermIds } from './term-matches.js';
import { typoReadings } from '../everyday/typos.js';
import { typoMemoOf } from './typo-memo.js';
import type { QueryReadings } from '../languages/query-readings.js';
import { idf, termScore } from './bm25f.js';
import { FIELD_COUNT, FIELD_PARAMS, FIELDS } from './fields.js';
import { hashNormalized, normalizeName } from './name-key.js';
import { ranksBefore, sortByScore } from './score-order.js';
import { ToolHits } from './tool-hits.js';

/** One sub-query scored against the whole list. */
export interface SubQueryResult {
  readonly query: QueryTerms;
  /** Indices of the tools that matched, best first. */
  readonly order: number[];
  readonly scores: Float64Array;
  readonly relevance: Float64Array;
  /** Per matched tool: which query term hit which field (`termIndex * FIELD_COUNT + field`, best field). */
  readonly hits: ToolHits;
  /** Tools the query names exactly. */
  readonly exact: Set<number>;
  /** How many words or terms of the request count (the "of N" in explanations). */
  readonly termCount: number;
  /** Tools whose relevance says the request names only their server (everyday-rules.ts). */
  readonly serverOnly: ReadonlySet<number>;
}

/** What scoring reads besides the list and the request. */
interface ScoringContext {
  /** The tools of the list, in corpus order (their annotations say which read and which delete). */
  tools?: readonly ToolInfo[];
  /** Families of everyday rules to leave out (RankOptions.without). */
  without?: readonly RuleFamily[];
}

// A tool that matches a negated term loses this share of what that term would have added.
const NEGATION_PENALTY = 0.5;
// Extra weight for matching more of the query's distinct terms (BM25 alone lets one rare word win).
const COORDINATION = 0.35;

const FIELD_QUALITY = FIELDS.map((field) => FIELD_PARAMS[field].quality);

/**
 * BM25F for one sub-query (the formula is in bm25f.ts), times a coordination factor for the share of
 * query terms matched. Also gathers the calibration coverage and the hits for explanations.
 */
export function scoreSubQuery(corpus: Corpus, text: string, context: ScoringContext = {}): SubQueryResult {
  // The ids of a corpus hold while its vocabulary is in the epoch it was built under; rankTools builds
  // or finds the corpus (renewing a full vocabulary first) and then scores, renewing nothing between.
  if (corpus.epoch !== corpus.vocabulary.epoch) throw new Error('corpus used after the vocabulary was renewed');
  const n = corpus.size;
  const without = context.without ?? [];
  const { query, allTerms, matches } = matchQuery(corpus, text, without);
  const readings = query.readings;
  const scores = new Float64Array(n);
  const coverage = scratch.coverage(n);
  const matchedTerms = scratch.matchedTerms(n);
  const hits = new ToolHits(n, matches.count);
  const { idfs, calIdfs, ownIdfMass } = termIdfs(allTerms.length, query.terms.length, matches.docFreq, n);
  let idfMass = ownIdfMass;
  let termCount = Math.max(query.terms.length, 1);
  if (readings) {
    const scoring = {
      readings,
      positiveCount: query.terms.length,
      negatedCount: query.negated.length,
      idfs,
      calIdfs,
      docFreq: matches.docFreq,
      listSize: n,
      negationPenalty: NEGATION_PENALTY,
    };
    const totals = scoreReadings(matches, scoring, scores, coverage, matchedTerms, hits);
    idfMass = totals.idfMass;
    termCount = Math.max(totals.unitCount, 1);
  } else {
    scoreTerms(matches, query.terms.length, { idfs, calIdfs }, { scores, coverage, matchedTerms, hits });
  }

  const exact = findExactNames(corpus, text);
  const relevance = new Float64Array(n);
  const order: number[] = [];
  // A request with readings counts its words (units), not its terms (a Japanese word's bigrams).
  for (let k = 0; k < hits.size; k += 1) {
    const doc = hits.tool(k);
    if (matchedTerms[doc]! > 0) scores[doc]! *= 1 + COORDINATION * (matchedTerms[doc]! / termCount);
    relevance[doc] = relevanceFromCoverage(idfMass > 0 ? coverage[doc]! / idfMass : 0, matchedTerms[doc]! / termCount);
    if (scores[doc]! > 0 || exact.has(doc)) order.push(doc);
  }
  for (const doc of exact) if (!hits.has(doc)) order.push(doc);
  const serverOnly = applyEverydayRules(
    { corpus, query, text, order, scores, relevance, termCount },
    context.tools,
    without,
  );
  const tail = addServerAffinity(corpus, scores, order, hits);
  liftExactNames(exact, [order, tail], scores, relevance);
  sortByScore(order, scores);
  return { query, order: mergeByScore(order, tail, scores), scores, relevance, hits, exact, termCount, serverOnly };
}

/** Two lists each in rank order (score-order.ts), merged into one in that order. */
function mergeByScore(first: readonly number[], second: ArrayLike<number>, scores: Float64Array): number[] {
  if (second.length === 0) return first as number[];
  const merged = new Array<number>(first.length + second.length);
  let i = 0;
  let j = 0;
  for (let k = 0; k < merged.length; k += 1) {
    merged[k] =
      j >= second.length || (i < first.length && ranksBefore(first[i]!, second[j]!, scores))
        ? first[i++]!
        : second[j++]!;
  }
  return merged;
}

/**
 * The request's terms and where the list has them. Reading terms (a Japanese request's English
 * glosses, everyday readings) follow the request's own. A word no tool has may be a typo of one that
 * some tool has: then the list is searched again with the guesses; in a language read against the
 * list's words (languages/cognate-readings.ts), with its loanwords and cognates.
 */
function matchQuery(
  corpus: Corpus,
  text: string,
  without: readonly RuleFamily[],
): { query: QueryTerms; allTerms: string[]; matches: ReturnType<typeof findTermMatches> } {
  const query = analyzeQuery(text, { vocabulary: corpus.vocabulary, without });
  const allTerms = [...query.terms, ...query.negated, ...(query.readings?.terms ?? [])];
  const matches = findTermMatches(corpus, allTerms);
  const guessed = without.includes('typos')
    ? undefined
    : query.cognates
      ? query.cognates(() => listTerms(corpus), matches.docFreq, new Set(allTerms))
      : query.crossLingual
        ? undefined
        : guessTypos(corpus, query, allTerms, matches.docFreq);
  if (!guessed) return { query, allTerms, matches };
  const guessedTerms = [...query.terms, ...query.negated, ...guessed.terms];
  return {
    query: { ...query, readings: guessed },
    allTerms: guessedTerms,
    matches: findTermMatches(corpus, guessedTerms),
  };
}

/** Each term's BM25 idf and calibration idf, and the calibration idf mass of the request's own terms. */
function termIdfs(
  termCount: number,
  ownTerms: number,
  docFreqs: ArrayLike<number>,
  n: number,
): { idfs: Float64Array; calIdfs: Float64Array; ownIdfMass: number } {
  let ownIdfMass = 0;
  const idfs = new Float64Array(termCount);
  const calIdfs = new Float64Array(termCount);
  for (let t = 0; t < termCount; t += 1) {
    const docFreq = docFreqs[t]!;
    calIdfs[t] = calibrationIdf(docFreq, n);
    if (t < ownTerms) ownIdfMass += calIdfs[t]!;
    idfs[t] = idf(docFreq, n);
  }
  return { idfs, calIdfs, ownIdfMass };
}

/**
 * Scores, coverage and matched terms of a request without readings. Matches come tool by tool, query
 * terms ascending within a tool: each tool's sum adds up term by term; a negated term (from
 * `positiveCount` on) takes a share of its score away.
 */
function scoreTerms(
  matches: ReturnType<typeof findTermMatches>,
  positiveCount: number,
  { idfs, calIdfs }: { idfs: Float64Array; calIdfs: Float64Array },
  into: { scores: Float64Array; coverage: Float64Array; matchedTerms: Uint16Array; hits: ToolHits },
): void {
  const { scores, coverage, matchedTerms, hits } = into;
  for (let m = 0; m < matches.count; m += 1) {
    const doc = matches.docs[m]!;
    const t = matches.terms[m]!;
    const field = matches.fields[m]!;
    const contribution = termScore(idfs[t]!, matches.weights[m]!);
    hits.add(doc, t * FIELD_COUNT + field);
    if (t >= positiveCount) {
      scores[doc]! -= NEGATION_PENALTY * contribution;
    } else {
      scores[doc]! += contribution;
      coverage[doc]! += calIdfs[t]! * FIELD_QUALITY[field]!;
      matchedTerms[doc]! += 1;
    }
  }
}

/**
 * A query that names a tool gets that tool first, whatever else matched: its score is lifted above
 * every other tool's, so that scores stay in rank order.
 */
function liftExactNames(
  exact: Set<number>,
  ranked: readonly ArrayLike<number>[],
  scores: Float64Array,
  relevance: Float64Array,
): void {
  if (exact.size === 0) return;
  let lift = 0;
  for (const list of ranked)
    for (let i = 0; i < list.length; i += 1) if (!exact.has(list[i]!)) lift = Math.max(lift, scores[list[i]!]!);
  for (const doc of exact) {
    scores[doc] = lift + Math.max(scores[doc]!, 1);
    relevance[doc] = Math.max(relevance[doc]!, EXACT_RELEVANCE);
  }
}

/** Typo readings for the request's words the list lacks (everyday/typos.ts), or undefined. */
function guessTypos(
  corpus: Corpus,
  query: QueryTerms,
  searched: readonly string[],
  docFreq: Int32Array,
): QueryReadings | undefined {
  const input = {
    terms: query.terms,
    surface: query.surface,
    readings: query.readings,
    docFreq,
    searched: new Set(searched),
  };
  return typoReadings(input, () => listTerms(corpus), typoMemoOf(corpus));
}

/** The list's distinct terms. */
function* listTerms(corpus: Corpus): Iterable<string> {
  for (const id of listTermIds(corpus)) yield corpus.vocabulary.termOf(id);
}

/**
 * Columns of one sub-query's scoring that do not outlive it (coverage, matched terms, affinity's
 * marks and tail), kept from call to call, grown to the largest list and cleared for each use. Made
 * anew per sub-query, each was an allocation outside the heap (docs/performance.md#scoring-scratch).
 * Scoring is synchronous: no two sub-queries use them at once.
 */
class ScoringScratch {
  #coverage = new Float64Array(0);
  #matchedTerms = new Uint16Array(0);
  #best = new Float64Array(0);
  #tailScores = new Float64Array(0);
  #listed = new Uint8Array(0);
  #tail = new Int32Array(0);

  coverage = (n: number): Float64Array => (this.#coverage = room(this.#coverage, n, true));
  matchedTerms = (n: number): Uint16Array => (this.#matchedTerms = room(this.#matchedTerms, n, true));
  best = (n: number): Float64Array => (this.#best = room(this.#best, n, true));
  listed = (n: number): Uint8Array => (this.#listed = room(this.#listed, n, true));
  /** Not cleared: every entry below `n` is written before it is read. */
  tailScores = (n: number): Float64Array => (this.#tailScores = room(this.#tailScores, n, false));
  /** Not cleared: filled from the start. */
  tail = (n: number): Int32Array => (this.#tail = room(this.#tail, n, false));
}

/** `held`, or one of its kind with room for `n` when it has less; its first `n` zeroed if `clear`. */
function room<T extends Float64Array | Uint16Array | Uint8Array | Int32Array>(held: T, n: number, clear: boolean): T {
  if (held.length < n) return new (held.constructor as new (length: number) => T)(n);
  if (clear) held.fill(0, 0, n);
  return held;
}

const scratch = new ScoringScratch();

// Tools of a server that matched well are likely companions in a task (create_document, add_paragraph,
// convert_to_pdf): each tool gains this share of its server's best score. Tools that matched nothing
// themselves get only AFFINITY_TAIL of it, which ranks them after every direct match. What it gained
// on the eval: docs/ranking.md#server-affinity.
const AFFINITY = 0.1;
const AFFINITY_TAIL = 0.02;

/**
 * Adds server affinity to the matched tools' scores, and returns the tail: the tools that matched
 * nothing but whose server did, each scored AFFINITY_TAIL of its server's best, in rank order.
 * The tail is put in order server by server rather than sorted with the matches: most of a large
 * list's ranked tools can be tail, and its scores take one value per server.
 */
function addServerAffinity(corpus: Corpus, scores: Float64Array, order: readonly number[], hits: ToolHits): Int32Array {
  const best = scratch.best(corpus.serverCount);
  for (const doc of order) {
    const server = corpus.servers[doc]!;
    if (scores[doc]! > best[server]!) best[server] = scores[doc]!;
  }
  const listed = scratch.listed(corpus.size);
  for (const doc of order) {
    listed[doc] = 1;
    scores[doc]! += AFFINITY * best[corpus.servers[doc]!]!;
  }
  const tailScores = scratch.tailScores(corpus.serverCount);
  for (let s = 0; s < corpus.serverCount; s += 1) tailScores[s] = AFFINITY_TAIL * best[s]!;
  const servers: number[] = [];
  for (let s = 0; s < corpus.serverCount; s += 1) if (best[s]! > 0) servers.push(s);
  servers.sort((a, b) => (tailScores[a]! > tailScores[b]! ? -1 : tailScores[a]! < tailScores[b]! ? 1 : 0));
  const { serverTools, serverStarts } = corpus;
  const tail = scratch.tail(corpus.size);
  let length = 0;
  for (let s = 0; s < servers.length;) {
    // Servers with equal tail scores have their tools merged in list order.
    const start = length;
    const score = tailScores[servers[s]!]!;
    let end = s;
    for (; end < servers.length && tailScores[servers[end]!] === score; end += 1) {
      const server = servers[end]!;
      for (let k = serverStarts[server]!; k < serverStarts[server + 1]!; k += 1) {
        const doc = serverTools[k]!;
        if (listed[doc] === 1 || hits.has(doc)) continue;
        scores[doc] = score;
        tail[length++] = doc;
      }
    }
    if (end > s + 1) tail.subarray(start, length).sort();
    s = end;
  }
  return tail.subarray(0, length);
}

// Words that look like identifiers: snake/kebab/dotted/colon names or inner capitals (getFileContents).
const IDENTIFIER_LIKE = /[\p{L}\p{N}][_\-.:/][\p{L}\p{N}]|\p{Ll}\p{Lu}/u;

/** Tools whose own name the query spells out: the whole sub-query, or one identifier-like word in it. */
function findExactNames(corpus: Corpus, text: string): Set<number> {
  const exact = new Set<number>();
  const add = (key: string): void => {
    const { names, nameHashes, nameDocs } = corpus;
    const hash = hashNormalized(key);
    for (let i = 0; i < nameHashes.length; i += 1) {
      if (nameHashes[i] === hash && normalizeName(names[i]!) === key) exact.add(nameDocs[i]!);
    }
  };
  const whole = normalizeName(text);
  if (whole.length >= 3) add(whole);
  for (const word of text.split(/[\s,;()[\]{}"'`<>]+/)) {
    const trimmed = word.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
    if (trimmed.length >= 3 && IDENTIFIER_LIKE.test(trimmed)) add(normalizeName(trimmed));
  }
  return exact;
}
