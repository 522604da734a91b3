import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';

/**
 * Vectors shared by the replicas (Redis, src/shared/shared-vectors.ts), by project and content id.
 * Never fails: a vector that cannot be read is undefined, a write is best effort.
 */
export interface SharedVectors {
  read(projectId: string, ids: readonly string[]): Promise<Array<Float32Array | undefined>>;
  write(projectId: string, entries: ReadonlyArray<readonly [id: string, vector: Float32Array]>): void;
}

/**
 * Vectors by content: the key is the project and a content id (a SHA-256 of the model and the
 * embedded text), so a tool whose text changes is embedded anew and a renamed model never reuses
 * another's vectors. Redis, when configured, keeps them under the same scope.
 *
 * Scope: per project. Tool vectors are not secrets, but a cache shared across projects would tell one
 * project which tools another sent: a list some other tenant had already embedded would answer
 * `meta.semantic: "hybrid"` (and faster) on its first search. The price is embedding a popular tool
 * once per project that sends it (~15 ms of worker CPU, 2 KB). Query vectors are tenant data too.
 *
 * Bounded in bytes (lru-cache `maxSize`): the least recently used vectors go first, whichever
 * project they belong to, so a flood of distinct lists cannot grow memory past the bound.
 */
export class VectorCache {
  readonly #cache: LRUCache<string, Float32Array>;

  constructor(maxBytes: number) {
    this.#cache = new LRUCache({
      maxSize: Math.max(1, maxBytes),
      // The vector plus the key string and the entry's bookkeeping (~100 bytes, measured roughly).
      sizeCalculation: (vector, key) => vector.byteLength + key.length * 2 + 100,
    });
  }

  /** What a vector is of: the model and the text, hashed (43 characters). */
  static contentId(model: string, text: string): string {
    return createHash('sha256').update(model).update('\u0000').update(text).digest('base64url');
  }

  static key(projectId: string, contentId: string): string {
    return `${projectId}\u0000${contentId}`;
  }

  get(key: string): Float32Array | undefined {
    return this.#cache.get(key);
  }

  /** Stores a copy: a vector may view a batch's shared buffer, which must not stay alive through it. */
  set(key: string, vector: Float32Array): void {
    this.#cache.set(key, vector.slice());
  }

  get bytes(): number {
    return this.#cache.calculatedSize;
  }

  get size(): number {
    return this.#cache.size;
  }
}
