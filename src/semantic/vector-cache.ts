import { createHash } from 'node:crypto';
import {
  ENTRY_OVERHEAD_BYTES,
  stringBytes,
  type HeldKey,
  type MemoryBudget,
  type ProjectCache,
} from '../memory/exports.js';

/**
 * Vectors shared by the replicas (Redis, src/semantic/shared-vectors.ts), by project and content id.
 * Never fails: a vector that cannot be read is undefined, a write is best effort.
 */
export interface SharedVectors {
  read(projectId: string, ids: readonly string[]): Promise<Array<Float32Array | undefined>>;
  write(projectId: string, entries: ReadonlyArray<readonly [id: string, vector: Float32Array]>): void;
}

/**
 * Vectors by project and content id (a SHA-256 of the model and the embedded text), so a tool whose
 * text changes is embedded anew and a renamed model never reuses another's vectors. Redis, when
 * configured, keeps them under the same scope.
 *
 * Scope: per project. Tool vectors are not secrets, but a cache shared across projects would tell one
 * project which tools another sent: a list some other tenant had already embedded would answer
 * `meta.semantic: "hybrid"` (and faster) on its first search. The price is embedding a popular tool
 * once per project that sends it (its encoder time, and 2 KB). Query vectors are tenant data too.
 *
 * Entries of the service's one memory budget (src/memory: CACHE_MEMORY_MB, fair across projects), and
 * all vectors together stay within EMBEDDINGS_CACHE_MB besides (least recently used out first, whichever
 * project they belong to: set it below CACHE_MEMORY_MB only to keep vectors from crowding out the rest).
 */
const CACHE_NAME = 'vectors';
/** Characters of a content id (SHA-256 in base64url), the cache's key. */
const CONTENT_ID_CHARS = 43;
/** Bytes of a key as the budget holds it (MemoryBudget.cache: the cache's name, NUL, the id). */
const KEY_BYTES = stringBytes(`${CACHE_NAME}\u0000${'0'.repeat(CONTENT_ID_CHARS)}`);
/** Bytes a vector of `length` numbers holds: the typed array object and its backing store's header beside the numbers. */
const vectorBytes = (length: number): number => length * Float32Array.BYTES_PER_ELEMENT + ENTRY_OVERHEAD_BYTES;

export class VectorCache {
  readonly #cache: ProjectCache<Float32Array>;
  /** Bytes one project's vectors can take: its share of the budget, or all vectors' bound when lower. */
  readonly #projectBytes: number;

  constructor(memory: MemoryBudget, maxBytes: number) {
    this.#cache = memory.cache<Float32Array>(CACHE_NAME, { sizeOf: (vector) => vectorBytes(vector.length), maxBytes });
    this.#projectBytes = Math.min(memory.projectMaxBytes, maxBytes);
  }

  /**
   * How many vectors of one list a project keeps: half of what its vectors can take, the other half
   * left to its other lists, queries and caches. A list with more tools had every search's new
   * vectors evict the list's earlier ones, so each search embedded part of it again (at an endpoint's
   * price); its tools past this rank lexically instead. Unbounded until the model's length is known.
   */
  capacity(dimensions: number | undefined): number {
    if (dimensions === undefined) return Number.POSITIVE_INFINITY;
    // As the budget counts an entry (MemoryBudget.cache): its overhead, its key and its value.
    const entryBytes = ENTRY_OVERHEAD_BYTES + KEY_BYTES + vectorBytes(dimensions);
    return Math.floor(this.#projectBytes / 2 / entryBytes);
  }

  /** Bytes one project's vectors can take (its share of the budget, or all vectors' bound when lower). */
  get projectBytes(): number {
    return this.#projectBytes;
  }

  /** What a vector is of: the model and the text, hashed (CONTENT_ID_CHARS characters). */
  static contentId(model: string, text: string): string {
    return createHash('sha256').update(model).update('\u0000').update(text).digest('base64url');
  }

  get(projectId: string, id: string): Float32Array | undefined {
    return this.#cache.get(projectId, id);
  }

  /** The cache's own key for an id, for `getHeld`: kept per tool list, looked up on every search of it. */
  heldKey(id: string): HeldKey {
    return this.#cache.heldKey(id);
  }

  getHeld(projectId: string, key: HeldKey): Float32Array | undefined {
    return this.#cache.getHeld(projectId, key);
  }

  /** Stores a copy: a vector may view a batch's shared buffer, which must not stay alive through it. */
  set(projectId: string, id: string, vector: Float32Array): void {
    this.#cache.set(projectId, id, vector.slice());
  }
}
