import { createRankCache, type RankCache } from '@catalog-search/core';
import type { MemoryBudget, ProjectCache } from '../memory/exports.js';

/**
 * One rank cache per project, so nothing analysed for one tenant is ever seen by another. Each is
 * accounted in the service's memory budget (src/memory) at its estimated bytes, re-measured after
 * every search that used it: a project whose cache the budget evicts starts with an empty one.
 * `projects` still caps how many are kept (RANK_CACHE_PROJECTS), and `toolsPerProject` how many tool
 * analyses each holds (RANK_CACHE_TOOLS_PER_PROJECT).
 */
export class ProjectRankCaches {
  readonly #caches: ProjectCache<RankCache>;
  readonly #projects = new Set<string>();
  readonly #maxProjects: number;
  readonly #toolsPerProject: number;

  constructor(options: { projects: number; toolsPerProject: number; memory: MemoryBudget }) {
    this.#maxProjects = options.projects;
    this.#toolsPerProject = options.toolsPerProject;
    this.#caches = options.memory.cache<RankCache>('rank-caches', {
      sizeOf: (cache) => cache.bytes,
      onRemove: (cache, projectId) => {
        cache.clear();
        this.#projects.delete(projectId);
      },
    });
  }

  for(projectId: string): RankCache {
    let cache = this.#caches.get(projectId, 'rank');
    if (cache === undefined) {
      cache = createRankCache({ maxEntries: this.#toolsPerProject });
      this.#caches.set(projectId, 'rank', cache);
    }
    // Set order is recency: the least recently used project is dropped past `projects`.
    this.#projects.delete(projectId);
    this.#projects.add(projectId);
    if (this.#projects.size > this.#maxProjects) {
      const oldest = this.#projects.values().next().value!;
      this.#caches.delete(oldest, 'rank');
    }
    return cache;
  }

  /** Accounts the project's cache at its size now (call after a search used it). */
  measure(projectId: string, cache: RankCache): void {
    if (this.#caches.get(projectId, 'rank') === cache) this.#caches.set(projectId, 'rank', cache);
  }

  get projectCount(): number {
    return this.#projects.size;
  }

  has(projectId: string): boolean {
    return this.#projects.has(projectId);
  }
}
