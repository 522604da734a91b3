import { LRUCache } from 'lru-cache';
import type { RawGrade } from './grade-parser.js';

/**
 * One project's complete model answers, by prompt key, for `ttlMs` (least recently used go first).
 * Only complete answers are kept: a cut or failed one would be repeated for as long as it lived.
 */
export class AnswerCache {
  readonly #answers: LRUCache<string, { grades: RawGrade[] }> | undefined;

  /** `ttlMs` 0 turns the cache off. */
  constructor(options: { ttlMs: number; maxEntries: number }) {
    this.#answers = options.ttlMs > 0 ? new LRUCache({ max: options.maxEntries, ttl: options.ttlMs }) : undefined;
  }

  get(key: string): RawGrade[] | undefined {
    return this.#answers?.get(key)?.grades;
  }

  set(key: string, grades: RawGrade[]): void {
    this.#answers?.set(key, { grades });
  }
}
