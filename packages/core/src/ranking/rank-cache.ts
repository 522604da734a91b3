import type { ToolInfo } from '../schemas.js';
import type { Corpus } from './corpus.js';
import type { ToolAnalysis } from './tool-analysis.js';
import type { RankCache } from './types.js';

export interface RankCacheOptions {
  /** Most tool analyses kept; the least recently used go first. Default 20,000. */
  maxEntries?: number;
}

// Indexed tool lists kept: a router sends the same list again and again, and a multi-step search
// ranks several sub-queries against one list; a few recent lists cover both.
const MAX_CORPORA = 4;

/**
 * Per-project ranking cache: a bounded LRU of per-tool analyses keyed by tool content (see
 * `toolContentKey`), plus the few most recent indexed lists. Keep one per project: entries are derived
 * from a project's own tool list and must not serve another project.
 */
export class ToolAnalysisCache implements RankCache {
  // Recency is a use stamp rather than Map re-insertion: a warm request touches every tool of its list,
  // and delete + set per tool churns the Map. When full, the least recently used tenth goes at once.
  readonly #entries = new Map<string, { analysis: ToolAnalysis; used: number }>();
  readonly #maxEntries: number;
  #clock = 0;
  #corpora: Array<{ analyses: readonly ToolAnalysis[]; corpus: Corpus }> = [];
  // Tool objects seen before, with the fields their content key was read from: ranking the same
  // objects again (the LLM stage's per-sub-query calls) skips building the key. Any top-level field
  // replaced makes it build the key again; changes made inside `inputSchema` or `tags` in place are
  // not seen here, so pass new objects for changed tools (parsed request bodies always are).
  #seen = new WeakMap<object, SeenTool>();

  constructor(options: RankCacheOptions = {}) {
    const max = options.maxEntries ?? 20_000;
    this.#maxEntries = Number.isFinite(max) ? Math.max(1, Math.floor(max)) : 20_000;
  }

  /** Tool analyses held. */
  get size(): number {
    return this.#entries.size;
  }

  get(key: string): ToolAnalysis | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    entry.used = ++this.#clock;
    return entry.analysis;
  }

  set(key: string, analysis: ToolAnalysis): void {
    this.#entries.set(key, { analysis, used: ++this.#clock });
    if (this.#entries.size > this.#maxEntries) this.#evict();
  }

  #evict(): void {
    const keep = this.#maxEntries - Math.floor(this.#maxEntries / 10);
    const byAge = [...this.#entries].sort((a, b) => a[1].used - b[1].used);
    for (const [key] of byAge.slice(0, byAge.length - keep)) this.#entries.delete(key);
  }

  /** The content key computed for this very tool object, if none of its fields changed since. */
  seenKey(tool: ToolInfo, maxDescriptionChars: number | undefined): string | undefined {
    const seen = this.#seen.get(tool);
    if (
      seen === undefined ||
      seen.maxDescriptionChars !== maxDescriptionChars ||
      seen.toolKey !== tool.toolKey ||
      seen.toolName !== tool.toolName ||
      seen.serverName !== tool.serverName ||
      seen.title !== tool.title ||
      seen.description !== tool.description ||
      seen.tags !== tool.tags ||
      seen.inputSchema !== tool.inputSchema
    ) {
      return undefined;
    }
    return seen.key;
  }

  rememberKey(tool: ToolInfo, maxDescriptionChars: number | undefined, key: string): void {
    const { toolKey, toolName, serverName, title, description, tags, inputSchema } = tool;
    this.#seen.set(tool, { key, maxDescriptionChars, toolKey, toolName, serverName, title, description, tags, inputSchema });
  }

  /** The index of a list whose tools analyse exactly like `analyses`, in the same order. */
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
    this.#seen = new WeakMap();
  }
}

type SeenTool = Pick<ToolInfo, 'toolKey' | 'toolName' | 'serverName' | 'title' | 'description' | 'tags' | 'inputSchema'> & {
  key: string;
  maxDescriptionChars: number | undefined;
};

export function createRankCache(options: RankCacheOptions = {}): RankCache {
  return new ToolAnalysisCache(options);
}
