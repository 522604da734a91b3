import type { RankCache } from './types.js';

export interface RankCacheOptions {
  /** Most tool analyses kept; the least recently used go first. Default 20,000. */
  maxEntries?: number;
}

/**
 * Bounded LRU of per-tool analyses keyed by content hash (see `toolContentKey`). Keep one per project:
 * entries are derived from a project's own tool list and must not serve another project.
 */
export class ToolAnalysisCache<V> implements RankCache {
  readonly #entries = new Map<string, V>();
  readonly #maxEntries: number;

  constructor(options: RankCacheOptions = {}) {
    const max = options.maxEntries ?? 20_000;
    this.#maxEntries = Number.isFinite(max) ? Math.max(1, Math.floor(max)) : 20_000;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string): V | undefined {
    const value = this.#entries.get(key);
    if (value !== undefined) {
      // Re-insert to mark as most recently used (Map keeps insertion order).
      this.#entries.delete(key);
      this.#entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
  }

  clear(): void {
    this.#entries.clear();
  }
}

export function createRankCache(options: RankCacheOptions = {}): RankCache {
  return new ToolAnalysisCache<unknown>(options);
}
