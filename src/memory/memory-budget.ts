// One memory budget for every cache the service keeps. Bounding caches by entry counts is not enough:
// an entry's size is the tenant's to choose, and a few tools with huge descriptions grew the process by
// gigabytes in a minute (docs/operations.md#memory). Here every entry is accounted in bytes (its key
// included) against one budget (CACHE_MEMORY_MB), and the budget is shared fairly between projects:
// - no project holds more than `projectShare` of it (CACHE_PROJECT_SHARE): past that, the project's
//   own least recently used entries go, whatever cache they belong to;
// - when the whole budget is full, the largest projects are trimmed first, down to a common level
//   (max-min fairness), so one busy project cannot evict everyone else's entries: it can push others
//   down at most to its own size.
// Each project's entries are one lru-cache (its maxSize is the project's share), so recency, TTLs and
// size accounting are lru-cache's; this module adds the budget across projects and caches.
import { LRUCache } from 'lru-cache';

interface MemoryBudgetOptions {
  /** Bytes all caches together may hold. */
  maxBytes: number;
  /** Largest part of `maxBytes` one project may hold, in (0, 1]. */
  projectShare: number;
}

/** Bytes a cache entry costs besides its key and value (lru-cache's slots, the entry object). */
export const ENTRY_OVERHEAD_BYTES = 96;
/**
 * When the budget is full it is trimmed to this fraction of itself, so that trimming (which sorts the
 * projects by size) runs once per few percent of the budget written rather than on every insert.
 */
const TRIM_TO = 0.95;

/** Bytes of a string held in memory (V8 stores most strings one byte per character; two is the bound). */
export function stringBytes(text: string): number {
  return 2 * text.length;
}

interface CacheOptions<V> {
  /** Bytes the value holds (the key is counted separately). */
  sizeOf: (value: V) => number;
  /** How long an entry may be used; default: until evicted. */
  ttlMs?: number;
  /** Called when an entry leaves the cache for any reason but being read (eviction, expiry, replacement, clear). */
  onRemove?: (value: V, projectId: string) => void;
  /**
   * Most entries of this cache per project, besides the byte budget (the oldest written go first);
   * for caches with a published count limit. Costs a key list per project: not for hot caches.
   */
  maxEntriesPerProject?: number;
  /**
   * Most bytes of this cache for all projects together, besides the budget (the least recently used
   * go first); for caches with a published byte limit. Below the budget it costs a recency list (a
   * key per entry, and time on every lookup); at or above it, it never binds first and is ignored.
   */
  maxBytes?: number;
}

/** A key as a cache holds it (see ProjectCache.heldKey). */
export type HeldKey = string & { readonly held: unique symbol };

/** A named cache whose entries belong to projects and count against the budget. */
export interface ProjectCache<V> {
  readonly name: string;
  get(projectId: string, key: string): V | undefined;
  /**
   * `key` as the budget holds it, for getHeld. For a caller that looks the same keys up on every
   * request (a list's vectors, on every search of it) and keeps these: a key made anew for each lookup
   * is a new string to hash, most of a lookup's time (docs/performance.md#tool-set-references).
   */
  heldKey(key: string): HeldKey;
  /** get, by a key from heldKey. */
  getHeld(projectId: string, key: HeldKey): V | undefined;
  /** Stores the value; false when it cannot be held (larger than a project's share). */
  set(projectId: string, key: string, value: V): boolean;
  delete(projectId: string, key: string): void;
}

export interface MemoryUsage {
  maxBytes: number;
  projectMaxBytes: number;
  usedBytes: number;
  projects: number;
  /** Bytes held per cache name. */
  byCache: Record<string, number>;
}

interface Held {
  cache: string;
  value: unknown;
  size: number;
  onRemove: ((value: never, projectId: string) => void) | undefined;
  /** Takes the entry out of its cache's own bookkeeping (the recency list of a cache with a byte limit). */
  untrack: ((projectId: string, key: string) => void) | undefined;
  /** Set again with the same value (a new size): not a removal. */
  resized?: boolean;
}

export class MemoryBudget {
  readonly maxBytes: number;
  readonly projectMaxBytes: number;
  readonly #projects = new Map<string, LRUCache<string, Held>>();
  readonly #byCache = new Map<string, number>();
  #used = 0;
  #reserved = 0;

  constructor(options: MemoryBudgetOptions) {
    if (!(options.maxBytes >= 1) || !(options.projectShare > 0 && options.projectShare <= 1)) {
      throw new RangeError('MemoryBudget: maxBytes must be ≥ 1 and projectShare in (0, 1]');
    }
    this.maxBytes = Math.floor(options.maxBytes);
    this.projectMaxBytes = Math.max(1, Math.floor(options.maxBytes * options.projectShare));
  }

  /**
   * Sets aside `bytes` of the budget for memory held outside these caches (shared by all projects,
   * such as the tokenizer's memos): the caches then share what is left.
   */
  reserve(name: string, bytes: number): void {
    if (this.#byCache.has(name)) throw new Error(`MemoryBudget: "${name}" exists already`);
    if (this.#reserved + bytes >= this.maxBytes)
      throw new RangeError(`MemoryBudget: reserving ${bytes} bytes for ${name} leaves nothing for caches`);
    this.#byCache.set(name, bytes);
    this.#reserved += bytes;
    this.#used += bytes;
    if (this.#used > this.maxBytes) this.#trim();
  }

  /** A cache of values accounted against this budget; `name` must be unique per budget. */
  cache<V>(name: string, options: CacheOptions<V>): ProjectCache<V> {
    if (this.#byCache.has(name)) throw new Error(`MemoryBudget: a cache named "${name}" exists already`);
    this.#byCache.set(name, 0);
    return new BudgetCache<V>(name, options, this.#entries, this.maxBytes);
  }

  /** What the budget's caches reach of it (BudgetEntries). */
  readonly #entries: BudgetEntries = {
    partition: (projectId) => this.#projects.get(projectId),
    projectCount: () => this.#projects.size,
    hasProject: (projectId) => this.#projects.has(projectId),
    write: (projectId, key, held, ttl) => this.#set(projectId, key, held, ttl),
    delete: (projectId, key) => {
      const partition = this.#projects.get(projectId);
      partition?.delete(key);
      if (partition?.size === 0) this.#projects.delete(projectId);
    },
    cacheBytes: (name) => this.#byCache.get(name) ?? 0,
  };

  /** Bytes held for one project (all caches). */
  projectBytes(projectId: string): number {
    return this.#projects.get(projectId)?.calculatedSize ?? 0;
  }

  usage(): MemoryUsage {
    return {
      maxBytes: this.maxBytes,
      projectMaxBytes: this.projectMaxBytes,
      usedBytes: this.#used,
      projects: this.#projects.size,
      byCache: Object.fromEntries(this.#byCache),
    };
  }

  #set(projectId: string, key: string, held: Held, ttl: number | undefined): boolean {
    if (held.size > this.projectMaxBytes) {
      this.#projects.get(projectId)?.delete(key);
      return false;
    }
    let partition = this.#projects.get(projectId);
    if (partition === undefined) {
      partition = this.#partition(projectId);
      this.#projects.set(projectId, partition);
    }
    const previous = partition.peek(key);
    if (previous !== undefined && previous.value === held.value) previous.resized = true;
    // lru-cache evicts this project's own oldest entries if the project passes its share.
    partition.set(key, held, { size: held.size, ...(ttl === undefined ? {} : { ttl }) });
    this.#account(held, +1);
    if (this.#used > this.maxBytes) this.#trim();
    return true;
  }

  #partition(projectId: string): LRUCache<string, Held> {
    return new LRUCache<string, Held>({
      maxSize: this.projectMaxBytes,
      dispose: (held, key) => {
        this.#account(held, -1);
        held.untrack?.(projectId, key);
        if (!held.resized) held.onRemove?.(held.value as never, projectId);
      },
    });
  }

  #account(held: Held, sign: 1 | -1): void {
    this.#used += sign * held.size;
    this.#byCache.set(held.cache, (this.#byCache.get(held.cache) ?? 0) + sign * held.size);
  }

  /**
   * Brings the total under TRIM_TO of the budget by trimming the largest projects towards one common
   * level (each loses its least recently used entries), and forgets empty projects.
   */
  #trim(): void {
    const target = this.maxBytes * TRIM_TO;
    const partitions = [...this.#projects.values()].sort((a, b) => b.calculatedSize - a.calculatedSize);
    // The level L such that the projects above it, cut to L, bring the total to the target.
    let level = 0;
    let rest = this.#used - this.#reserved;
    for (let count = 1; count <= partitions.length; count += 1) {
      rest -= partitions[count - 1]!.calculatedSize;
      const next = partitions[count]?.calculatedSize ?? 0;
      level = (target - this.#reserved - rest) / count;
      if (level >= next) break;
    }
    level = Math.max(0, level);
    // Largest first, and only until the target is met: where entries are large (a project's whole
    // rank cache is one), cutting every project above the level would empty them all.
    for (const partition of partitions) {
      if (partition.calculatedSize <= level || this.#used <= target) break;
      while (partition.calculatedSize > level && partition.size > 0 && this.#used > target) partition.pop();
    }
    for (const [projectId, partition] of this.#projects) if (partition.size === 0) this.#projects.delete(projectId);
  }
}

/** What a cache reaches of its budget: the projects' entries, and writing one against the budget. */
interface BudgetEntries {
  partition(projectId: string): LRUCache<string, Held> | undefined;
  projectCount(): number;
  hasProject(projectId: string): boolean;
  write(projectId: string, key: string, held: Held, ttl: number | undefined): boolean;
  /** Deletes the entry, and the project's partition once it is empty. */
  delete(projectId: string, key: string): void;
  /** Bytes the named cache holds (all projects). */
  cacheBytes(name: string): number;
}

/**
 * One named cache of the budget: its keys are prefixed with its name, so caches share each project's
 * partition without clashing. A count limit (WriteOrder) and a byte limit of its own (UseOrder) are
 * kept only by the caches that have one.
 */
class BudgetCache<V> implements ProjectCache<V> {
  readonly #prefix: string;
  readonly #writes: WriteOrder | undefined;
  readonly #uses: UseOrder | undefined;

  constructor(
    readonly name: string,
    private readonly options: CacheOptions<V>,
    private readonly entries: BudgetEntries,
    budgetBytes: number,
  ) {
    this.#prefix = `${name}\u0000`;
    const { maxEntriesPerProject, maxBytes } = options;
    this.#writes = maxEntriesPerProject === undefined ? undefined : new WriteOrder(maxEntriesPerProject, entries);
    // A byte limit at or above the budget never binds first, and its list costs time on every lookup
    // (docs/performance.md#the-memory-budgets-lookups).
    this.#uses = maxBytes !== undefined && maxBytes < budgetBytes ? new UseOrder(name, maxBytes, entries) : undefined;
  }

  // Arrow functions: callers may pass these on unbound (as they could the closures before).
  readonly heldKey = (key: string): HeldKey => (this.#prefix + key) as HeldKey;

  readonly get = (projectId: string, key: string): V | undefined => this.getHeld(projectId, this.heldKey(key));

  readonly getHeld = (projectId: string, key: HeldKey): V | undefined => {
    const value = this.entries.partition(projectId)?.get(key)?.value as V | undefined;
    if (value !== undefined) this.#uses?.touch(projectId, key);
    return value;
  };

  readonly set = (projectId: string, key: string, value: V): boolean => {
    const { options } = this;
    const size = ENTRY_OVERHEAD_BYTES + stringBytes(this.#prefix) + stringBytes(key) + options.sizeOf(value);
    if (this.#uses !== undefined && size > this.#uses.maxBytes) return false;
    const held = this.entries.write(
      projectId,
      this.#prefix + key,
      {
        cache: this.name,
        value,
        size,
        onRemove: options.onRemove as Held['onRemove'],
        untrack: this.#uses?.untrack,
      },
      options.ttlMs,
    );
    if (held) {
      this.#writes?.wrote(projectId, this.#prefix + key);
      this.#uses?.touch(projectId, this.#prefix + key);
      this.#uses?.keepWithinBytes();
    }
    return held;
  };

  readonly delete = (projectId: string, key: string): void => this.entries.delete(projectId, this.#prefix + key);
}

/** Keys written per project, oldest first, for a cache with a count limit: past it, the oldest go. */
class WriteOrder {
  readonly #written = new Map<string, Set<string>>();

  constructor(
    private readonly maxEntries: number,
    private readonly entries: BudgetEntries,
  ) {}

  wrote(projectId: string, key: string): void {
    let keys = this.#written.get(projectId);
    if (keys === undefined) this.#written.set(projectId, (keys = new Set()));
    keys.delete(key);
    keys.add(key);
    while (keys.size > this.maxEntries) {
      const oldest = keys.values().next().value!;
      keys.delete(oldest);
      this.entries.partition(projectId)?.delete(oldest);
    }
    // Keys of entries the budget evicted are pruned here, so the lists stay bounded by the count limit.
    if (this.#written.size > 2 * this.entries.projectCount() + 16) {
      for (const projectId of this.#written.keys())
        if (!this.entries.hasProject(projectId)) this.#written.delete(projectId);
    }
  }
}

/**
 * Entries in order of use, oldest first, for a cache with a byte limit of its own below the budget:
 * past it, the least recently used go. An entry leaves the list whenever it leaves the cache (untrack).
 */
class UseOrder {
  readonly #used = new Map<string, { projectId: string; key: string }>();

  constructor(
    private readonly name: string,
    readonly maxBytes: number,
    private readonly entries: BudgetEntries,
  ) {}

  readonly untrack = (projectId: string, key: string): void => {
    this.#used.delete(`${projectId}\u0000${key}`);
  };

  touch(projectId: string, key: string): void {
    const at = `${projectId}\u0000${key}`;
    this.#used.delete(at);
    this.#used.set(at, { projectId, key });
  }

  keepWithinBytes(): void {
    for (const [at, { projectId, key }] of this.#used) {
      if (this.entries.cacheBytes(this.name) <= this.maxBytes) return;
      this.#used.delete(at);
      this.entries.partition(projectId)?.delete(key);
    }
  }
}
