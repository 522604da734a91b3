import { stringBytes, type MemoryBudget, type ProjectCache } from '../memory/exports.js';
import type { SharedStore } from '../redis/shared-store.js';

/** What a report needs of the search it names: the request's terms and the tool ranked first. */
interface RememberedSearch {
  terms: string[];
  /** The first result's toolKey (a `selected` report of it may be position alone: report-events.ts). */
  first?: string;
  /** The searched list's tool-set id: shared learning tells the reported tool by its content in it. */
  list?: string;
}

/** Bytes of one remembered search in Redis at most (32 terms of ≤ 40 characters and a key). */
const MAX_SHARED_BYTES = 4096;
/**
 * Searches of a project remembered in process at most, newest kept: a router reports within seconds
 * of its search, and a busy project would otherwise fill its share of the memory budget with them
 * and push its rank caches and tool sets out (docs/performance.md#learning-from-use-npm-run-bench----feedback).
 */
const MAX_LOCAL_SEARCHES_PER_PROJECT = 2000;

/**
 * Each project's recent searches by `meta.requestId`, for FEEDBACK_SEARCH_TTL_MS, so that a router
 * can report `{ requestId, toolKey, outcome }` alone. In process inside the memory budget, and in
 * Redis when it is set (a report may reach another replica than its search did). Only the terms'
 * keyed hashes are kept (term-keys.ts), never the request's text or words.
 */
export class RecentSearches {
  readonly #local: ProjectCache<RememberedSearch>;

  constructor(
    memory: MemoryBudget,
    private readonly ttlMs: number,
    private readonly shared: SharedStore | undefined,
  ) {
    this.#local = memory.cache<RememberedSearch>('feedback-searches', {
      ttlMs,
      maxEntriesPerProject: MAX_LOCAL_SEARCHES_PER_PROJECT,
      sizeOf: (search) =>
        64 +
        search.terms.reduce((sum, term) => sum + 48 + stringBytes(term), 0) +
        stringBytes(search.first ?? '') +
        stringBytes(search.list ?? ''),
    });
  }

  /** Remembers a search; the Redis write is not waited for (the search's answer is not held up by it). */
  remember(projectId: string, requestId: string, search: RememberedSearch): void {
    this.#local.set(projectId, requestId, search);
    if (this.shared) {
      void this.shared.set(
        'feedback-remember',
        this.shared.key('feedback-search', projectId, requestId),
        JSON.stringify(search),
        this.ttlMs,
        MAX_SHARED_BYTES,
      );
    }
  }

  /**
   * The searches named, by requestId (absent: unknown, expired, or another project's). `unreachable`:
   * some were not in process and Redis could not be asked, so absent may not mean unknown.
   */
  async find(
    projectId: string,
    requestIds: readonly string[],
  ): Promise<{ found: Map<string, RememberedSearch>; unreachable: boolean }> {
    const found = new Map<string, RememberedSearch>();
    const missing: string[] = [];
    for (const id of new Set(requestIds)) {
      const search = this.#local.get(projectId, id);
      if (search) found.set(id, search);
      else missing.push(id);
    }
    if (missing.length === 0 || !this.shared) return { found, unreachable: false };
    const shared = this.shared;
    const values = await shared.command('feedback-recall', (redis) =>
      redis.mgetBuffer(...missing.map((id) => shared.key('feedback-search', projectId, id))),
    );
    if (values === undefined) return { found, unreachable: true };
    values.forEach((value, i) => {
      const search = value === null ? undefined : parseSearch(value.toString('utf8'));
      if (search) found.set(missing[i]!, search);
    });
    return { found, unreachable: false };
  }
}

function parseSearch(text: string): RememberedSearch | undefined {
  try {
    const { terms, first, list } = JSON.parse(text) as { terms?: unknown; first?: unknown; list?: unknown };
    if (!Array.isArray(terms) || !terms.every((term) => typeof term === 'string')) return undefined;
    return {
      terms: terms as string[],
      ...(typeof first === 'string' ? { first } : {}),
      ...(typeof list === 'string' ? { list } : {}),
    };
  } catch {
    return undefined;
  }
}
