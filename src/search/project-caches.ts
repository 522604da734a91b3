import { createRankCache, type RankCache } from '@catalog-search/core';
import { LRUCache } from 'lru-cache';

/**
 * One rank cache per project, so nothing analysed for one tenant is ever seen by another. The set
 * of projects is itself bounded: the least recently active project's cache is dropped first.
 */
export class ProjectRankCaches {
  readonly #caches: LRUCache<string, RankCache>;
  readonly #toolsPerProject: number;

  constructor(options: { projects: number; toolsPerProject: number }) {
    this.#caches = new LRUCache({ max: options.projects });
    this.#toolsPerProject = options.toolsPerProject;
  }

  for(projectId: string): RankCache {
    let cache = this.#caches.get(projectId);
    if (cache === undefined) {
      cache = createRankCache({ maxEntries: this.#toolsPerProject });
      this.#caches.set(projectId, cache);
    }
    return cache;
  }

  get projectCount(): number {
    return this.#caches.size;
  }

  has(projectId: string): boolean {
    return this.#caches.has(projectId);
  }
}
