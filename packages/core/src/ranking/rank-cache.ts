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
  readonly #entries = new Map<string, ToolAnalysis>();
  readonly #maxEntries: number;
  #corpora: Array<{ analyses: readonly ToolAnalysis[]; corpus: Corpus }> = [];

  constructor(options: RankCacheOptions = {}) {
    const max = options.maxEntries ?? 20_000;
    this.#maxEntries = Number.isFinite(max) ? Math.max(1, Math.floor(max)) : 20_000;
  }

  /** Tool analyses held. */
  get size(): number {
    return this.#entries.size;
  }

  get(key: string): ToolAnalysis | undefined {
    const value = this.#entries.get(key);
    if (value !== undefined) {
      // Re-insert to mark as most recently used (Map keeps insertion order).
      this.#entries.delete(key);
      this.#entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: ToolAnalysis): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
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
  }
}

export function createRankCache(options: RankCacheOptions = {}): RankCache {
  return new ToolAnalysisCache(options);
}
