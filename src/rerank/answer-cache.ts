import { stringBytes, type ProjectCache } from '../memory/exports.js';
import type { RawGrade } from './grade-parser.js';

/** What the 'llm-answers' cache of the memory budget holds per prompt key. */
export interface CachedAnswer {
  grades: RawGrade[];
}

/** Bytes a cached answer holds. */
export function cachedAnswerBytes({ grades }: CachedAnswer): number {
  return grades.reduce((sum, grade) => sum + 48 + stringBytes(grade.id) + stringBytes(grade.why), 32);
}

/**
 * One project's complete model answers, by prompt key: its view of the service's 'llm-answers' cache
 * (src/memory), which expires them after the TTL and keeps at most LLM_CACHE_ENTRIES_PER_PROJECT per
 * project. Only complete answers are kept: a cut or failed one would be repeated for as long as it lived.
 */
export class AnswerCache {
  /** `cache` undefined: the cache is off (LLM_CACHE_TTL_MS 0). */
  constructor(
    private readonly cache: ProjectCache<CachedAnswer> | undefined,
    private readonly projectId: string,
  ) {}

  get(key: string): RawGrade[] | undefined {
    return this.cache?.get(this.projectId, key)?.grades;
  }

  set(key: string, grades: RawGrade[]): void {
    this.cache?.set(this.projectId, key, { grades });
  }
}
