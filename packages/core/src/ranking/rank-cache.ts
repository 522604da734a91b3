import type { ToolInfo } from '../schemas.js';
import type { Corpus } from './corpus.js';
import type { ToolAnalysis } from './tool-analysis.js';
import type { ToolContent } from './tool-content.js';
import type { RankCache } from './types.js';

export interface RankCacheOptions {
  /** Most tool analyses kept; the least recently used go first. Default 20,000. */
  maxEntries?: number;
}

// Prepared tool lists (corpora) kept: a router sends the same list again and again, and a multi-step search
// ranks several sub-queries against one list; a few recent lists cover both.
const MAX_CORPORA = 4;

/**
 * Per-project ranking cache: a bounded LRU of per-tool analyses, plus the few most recent prepared
 * lists. An analysis is found by the tool's key and used only when the tool's whole content (see
 * ToolContent) equals the content it was made from, string by string: equal content, equal analysis.
 * Looking up by the short toolKey and comparing, rather than by a key string of the whole content,
 * spares every request building, flattening and hashing a string of all its tools' text. Keep one
 * per project: entries are derived from a project's own tool list and must not serve another project.
 */
export class ToolAnalysisCache implements RankCache {
  // Recency is a use stamp rather than Map re-insertion: a warm request touches every tool of its list,
  // and delete + set per tool churns the Map. When full, the least recently used tenth goes at once.
  readonly #entries = new Map<string, { content: ToolContent; analysis: ToolAnalysis; used: number }>();
  readonly #maxEntries: number;
  #clock = 0;
  #corpora: Array<{ analyses: readonly ToolAnalysis[]; corpus: Corpus }> = [];
  // Tool lists ranked before, with each tool's content: ranking the same list again (the LLM stage's
  // per-sub-query calls pass the same `tools` array) skips reading the contents. One weak entry per
  // list rather than per tool object: registering every tool object of every request in a WeakMap
  // cost about a fifth of a warm request. A tool object replaced, or any of its top-level fields
  // replaced, makes its content be read again; changes made inside `inputSchema` or `tags` in place are
  // not seen here, so pass new objects for changed tools (parsed request bodies always are).
  #lists = new WeakMap<readonly ToolInfo[], SeenList>();

  constructor(options: RankCacheOptions = {}) {
    const max = options.maxEntries ?? 20_000;
    this.#maxEntries = Number.isFinite(max) ? Math.max(1, Math.floor(max)) : 20_000;
  }

  /** Tool analyses held. */
  get size(): number {
    return this.#entries.size;
  }

  /** The analysis of exactly this content, if held. */
  get(content: ToolContent): ToolAnalysis | undefined {
    const entry = this.#entries.get(content[0]);
    if (entry === undefined || !sameContent(entry.content, content)) return undefined;
    entry.used = ++this.#clock;
    return entry.analysis;
  }

  /** Holds `analysis` for `content`, in place of what its tool key held before. */
  set(content: ToolContent, analysis: ToolAnalysis): void {
    this.#entries.set(content[0], { content, analysis, used: ++this.#clock });
    if (this.#entries.size > this.#maxEntries) this.#evict();
  }

  #evict(): void {
    const keep = this.#maxEntries - Math.floor(this.#maxEntries / 10);
    const byAge = [...this.#entries].sort((a, b) => a[1].used - b[1].used);
    for (const [key] of byAge.slice(0, byAge.length - keep)) this.#entries.delete(key);
  }

  /** What `rememberList` recorded for this very array, if anything. */
  seenList(tools: readonly ToolInfo[], maxDescriptionChars: number | undefined): SeenList | undefined {
    const seen = this.#lists.get(tools);
    return seen?.maxDescriptionChars === maxDescriptionChars ? seen : undefined;
  }

  rememberList(tools: readonly ToolInfo[], maxDescriptionChars: number | undefined, contents: readonly ToolContent[]): void {
    this.#lists.set(tools, new SeenList(tools, maxDescriptionChars, contents));
  }

  /** The prepared corpus of a list whose tools analyse exactly like `analyses`, in the same order. */
  findCorpus(analyses: readonly ToolAnalysis[]): Corpus | undefined {
    const at = this.#corpora.findIndex(
      (entry) => entry.analyses.length === analyses.length && entry.analyses.every((a, i) => a === analyses[i]),
    );
    if (at < 0) return undefined;
    const [entry] = this.#corpora.splice(at, 1);
    this.#corpora.unshift(entry!);
    return entry!.corpus;
  }

  addCorpus(analyses: readonly ToolAnalysis[], corpus: Corpus): void {
    this.#corpora.unshift({ analyses, corpus });
    this.#corpora.length = Math.min(this.#corpora.length, MAX_CORPORA);
  }

  clear(): void {
    this.#entries.clear();
    this.#corpora = [];
    this.#lists = new WeakMap();
  }
}

function sameContent(a: ToolContent, b: ToolContent): boolean {
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return false;
  return true;
}

// What a tool's content is read from: the object itself and its top-level fields.
const SNAPSHOT = 8;

/** A tool list's contents, with a snapshot of each tool's top-level fields to check them against. */
export class SeenList {
  readonly #snapshot: unknown[];
  readonly #contents: readonly ToolContent[];

  constructor(
    tools: readonly ToolInfo[],
    readonly maxDescriptionChars: number | undefined,
    contents: readonly ToolContent[],
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
    this.#contents = contents;
  }

  /** The content recorded for the tool at `index`, if it is the same object with the same fields. */
  contentOf(index: number, tool: ToolInfo): ToolContent | undefined {
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
    return this.#contents[index];
  }
}

export function createRankCache(options: RankCacheOptions = {}): RankCache {
  return new ToolAnalysisCache(options);
}
