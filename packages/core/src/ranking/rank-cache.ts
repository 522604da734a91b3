import type { ToolInfo } from '../schemas.js';
import { corpusOf, type Corpus } from './corpus.js';
import { actionTermsBytes } from './action-terms.js';
import { postingsBytes } from './term-matches.js';
import { typoMemoBytes } from './typo-memo.js';
import { analyzeContents, type ToolAnalysis } from './tool-analysis.js';
import { recordKey, ToolReader, type ToolRecord } from './tool-reader.js';
import type { RankCache } from './types.js';
import { Vocabulary } from '../text/vocabulary.js';

export interface RankCacheOptions {
  /** Most tool analyses kept; the least recently used go first. Default 20,000. */
  maxEntries?: number;
}

// Prepared tool lists (corpora) kept: a router sends the same list again and again, and a multi-step search
// ranks several sub-queries against one list; a few recent lists cover both.
const MAX_CORPORA = 4;

/**
 * Per-project ranking cache: a bounded LRU of per-tool analyses, plus the few most recent prepared
 * lists. An analysis is found by the tool's key and used only when everything analysis reads from the
 * tool (its record, see ToolRecord) equals what it was made from, string by string: equal record,
 * equal analysis. Looking up by the short toolKey and comparing, rather than by a key string of the
 * whole content, spares every request building, flattening and hashing a string of all its tools'
 * text. Keep one per project: entries are derived from a project's own tool list and must not serve
 * another project.
 */
class ToolAnalysisCache implements RankCache {
  readonly vocabulary = new Vocabulary();
  // Recency is a use stamp rather than Map re-insertion: a warm request touches every tool of its list,
  // and delete + set per tool churns the Map. When full, the least recently used tenth goes at once.
  readonly #entries = new Map<string, CacheEntry>();
  readonly #maxEntries: number;
  #clock = 0;
  #corpora: Array<{ analyses: readonly ToolAnalysis[]; corpus: Corpus }> = [];
  // Tool lists ranked before, with each tool's cache entry: ranking the same list again (the LLM
  // stage's per-sub-query calls pass the same `tools` array) skips reading the tools. One weak entry per
  // list rather than per tool object: registering every tool object of every request in a WeakMap
  // cost about a fifth of a warm request. A tool object replaced, or any of its top-level fields
  // replaced, makes it be read again; changes made inside `inputSchema` or `tags` in place are
  // not seen here, so pass new objects for changed tools (parsed request bodies always are).
  #lists = new WeakMap<readonly ToolInfo[], SeenList>();
  // The entries of the list ranked last, by position (see #findRead).
  #recent: readonly CacheEntry[] = [];
  // Estimated bytes of the entries (see `bytes`).
  #entryBytes = 0;
  // Reads each tool of a list to look it up (see ToolRecord).
  readonly #reader = new ToolReader();

  constructor(options: RankCacheOptions = {}) {
    const max = options.maxEntries ?? 20_000;
    this.#maxEntries = Number.isFinite(max) ? Math.max(1, Math.floor(max)) : 20_000;
  }

  /** Tools analysed so far: a list seen before, under the same vocabulary, adds none. */
  analysed = 0;

  /** Tool analyses held. */
  get size(): number {
    return this.#entries.size;
  }

  /** Approximate bytes held: each entry's record and analysis, and the prepared lists (with their postings, once made). */
  get bytes(): number {
    return (
      this.vocabulary.bytes + this.#entryBytes + this.#corpora.reduce((sum, held) => sum + corpusBytes(held.corpus), 0)
    );
  }

  analysesOf(
    tools: readonly ToolInfo[],
    maxDescriptionChars: number | undefined,
    epoch: number,
  ): readonly ToolAnalysis[] {
    const seen = this.#seenList(tools, maxDescriptionChars);
    // The same array again, unchanged: its analyses as they were (the same array, which corpusOf finds at once).
    if (seen?.unchanged(tools, epoch, ++this.#clock)) return seen.analyses;
    const analyses = new Array<ToolAnalysis>(tools.length);
    const entries = new Array<CacheEntry>(tools.length);
    // Tools not analysed yet (or only under an older vocabulary), with their records: analysed
    // together, after the lookups.
    const missing: number[] = [];
    const missingRecords: ToolRecord[] = [];
    let allSeen = seen !== undefined;
    for (let i = 0; i < tools.length; i += 1) {
      const tool = tools[i]!;
      let entry = seen?.entryOf(i, tool);
      if (entry !== undefined) {
        entry.used = ++this.#clock;
      } else {
        allSeen = false;
        this.#reader.read(tool, maxDescriptionChars);
        entry = this.#findRead(i);
      }
      if (entry !== undefined && entry.analysis.epoch === epoch) {
        entries[i] = entry;
        analyses[i] = entry.analysis;
      } else {
        missing.push(i);
        // A tool seen before keeps its cached record: its new reading is compared, never kept.
        missingRecords.push(entry?.record ?? this.#reader.take());
      }
    }
    if (missing.length > 0) {
      const made = analyzeContents(
        missingRecords.map((record) => this.#reader.contentOf(record)),
        this.vocabulary,
      );
      this.analysed += made.length;
      for (let k = 0; k < missing.length; k += 1) {
        analyses[missing[k]!] = made[k]!;
        entries[missing[k]!] = this.#set(missingRecords[k]!, made[k]!);
      }
    }
    if (!allSeen || missing.length > 0) {
      this.#lists.set(tools, new SeenList(tools, maxDescriptionChars, entries));
      this.#recent = entries;
    }
    return analyses;
  }

  /**
   * The entry made from exactly what the reader read last, if held. It is looked for first at
   * `position` in the list ranked last: routers send their list in the same order again and again, and
   * a guess that is right spares hashing the key and a lookup in a large Map.
   */
  #findRead(position: number): CacheEntry | undefined {
    const reader = this.#reader;
    let entry = this.#recent[position];
    if (entry === undefined || !reader.matches(entry.record)) {
      const held = this.#entries.get(reader.key);
      entry = held !== undefined && held !== entry && reader.matches(held.record) ? held : undefined;
    }
    if (entry !== undefined) entry.used = ++this.#clock;
    return entry;
  }

  /** Holds `analysis` for `record`, in place of what its tool key held before. */
  #set(record: ToolRecord, analysis: ToolAnalysis): CacheEntry {
    const entry = { record, analysis, used: ++this.#clock };
    const replaced = this.#entries.get(recordKey(record));
    if (replaced !== undefined) this.#entryBytes -= entryBytes(replaced);
    this.#entries.set(recordKey(record), entry);
    this.#entryBytes += entryBytes(entry);
    if (this.#entries.size > this.#maxEntries) this.#evict();
    return entry;
  }

  #evict(): void {
    const keep = this.#maxEntries - Math.floor(this.#maxEntries / 10);
    const byAge = [...this.#entries].sort((a, b) => a[1].used - b[1].used);
    for (const [key, entry] of byAge.slice(0, byAge.length - keep)) {
      this.#entries.delete(key);
      this.#entryBytes -= entryBytes(entry);
    }
  }

  /** What analysesOf recorded for this very array, if anything. */
  #seenList(tools: readonly ToolInfo[], maxDescriptionChars: number | undefined): SeenList | undefined {
    const seen = this.#lists.get(tools);
    return seen?.maxDescriptionChars === maxDescriptionChars ? seen : undefined;
  }

  corpusOf(analyses: readonly ToolAnalysis[]): Corpus {
    const at = this.#corpora.findIndex(
      (entry) =>
        entry.analyses === analyses ||
        (entry.analyses.length === analyses.length && entry.analyses.every((a, i) => a === analyses[i])),
    );
    if (at >= 0) {
      const [entry] = this.#corpora.splice(at, 1);
      this.#corpora.unshift(entry!);
      return entry!.corpus;
    }
    const corpus = corpusOf(analyses, this.vocabulary);
    this.#corpora.unshift({ analyses, corpus });
    this.#corpora.length = Math.min(this.#corpora.length, MAX_CORPORA);
    return corpus;
  }

  clear(): void {
    this.vocabulary.clear();
    this.#entries.clear();
    this.#corpora = [];
    this.#entryBytes = 0;
    this.#lists = new WeakMap();
    this.#recent = [];
  }
}

/** Bytes of an entry: its record's strings (2 per character) and numbers, and its analysis' share of the token arrays. */
function entryBytes({ record, analysis }: CacheEntry): number {
  let bytes = 64 + 8 * record.length;
  for (const item of record) if (typeof item === 'string') bytes += 2 * item.length;
  return bytes + 160 + 4 * (analysis.tokenCount + 8);
}

/** Bytes of a prepared list: its typed arrays, the names list, its postings, typo guesses and action terms. */
function corpusBytes(corpus: Corpus): number {
  return (
    postingsBytes(corpus) +
    typoMemoBytes(corpus) +
    actionTermsBytes(corpus) +
    corpus.tokens.byteLength +
    corpus.toolStarts.byteLength +
    corpus.fieldLengths.byteLength +
    corpus.fieldFactors.byteLength +
    corpus.servers.byteLength +
    corpus.serverTools.byteLength +
    corpus.serverStarts.byteLength +
    24 * corpus.names.length
  );
}

interface CacheEntry {
  readonly record: ToolRecord;
  readonly analysis: ToolAnalysis;
  used: number;
}

// What a tool's content is read from: the object itself and its top-level fields.
const SNAPSHOT = 8;

/** A tool list's cache entries, with a snapshot of each tool's top-level fields to check them against. */
class SeenList {
  readonly #snapshot: unknown[];
  readonly #entries: readonly CacheEntry[];
  /** The entries' analyses, in list order. */
  readonly analyses: readonly ToolAnalysis[];

  constructor(
    tools: readonly ToolInfo[],
    readonly maxDescriptionChars: number | undefined,
    entries: readonly CacheEntry[],
  ) {
    const snapshot = new Array<unknown>(tools.length * SNAPSHOT);
    for (let i = 0; i < tools.length; i += 1) {
      const tool = tools[i]!;
      const at = i * SNAPSHOT;
      snapshot[at] = tool;
      snapshot[at + 1] = tool.toolKey;
      snapshot[at + 2] = tool.toolName;
      snapshot[at + 3] = tool.serverName;
      snapshot[at + 4] = tool.title;
      snapshot[at + 5] = tool.description;
      snapshot[at + 6] = tool.tags;
      snapshot[at + 7] = tool.inputSchema;
    }
    this.#snapshot = snapshot;
    this.#entries = entries;
    this.analyses = entries.map((entry) => entry.analysis);
  }

  /**
   * Whether every tool of `tools` (this list's array) is as it was, with its analysis made under
   * `epoch`; if so, each entry is stamped used at `clock`.
   */
  unchanged(tools: readonly ToolInfo[], epoch: number, clock: number): boolean {
    if (tools.length !== this.#entries.length) return false;
    for (let i = 0; i < tools.length; i += 1) {
      const entry = this.entryOf(i, tools[i]!);
      if (entry === undefined || entry.analysis.epoch !== epoch) return false;
    }
    for (const entry of this.#entries) entry.used = clock;
    return true;
  }

  /** The entry of the tool at `index`, if it is the same object with the same fields. */
  entryOf(index: number, tool: ToolInfo): CacheEntry | undefined {
    const at = index * SNAPSHOT;
    const s = this.#snapshot;
    if (
      at >= s.length ||
      s[at] !== tool ||
      s[at + 1] !== tool.toolKey ||
      s[at + 2] !== tool.toolName ||
      s[at + 3] !== tool.serverName ||
      s[at + 4] !== tool.title ||
      s[at + 5] !== tool.description ||
      s[at + 6] !== tool.tags ||
      s[at + 7] !== tool.inputSchema
    ) {
      return undefined;
    }
    return this.#entries[index];
  }
}

export function createRankCache(options: RankCacheOptions = {}): RankCache {
  return new ToolAnalysisCache(options);
}
