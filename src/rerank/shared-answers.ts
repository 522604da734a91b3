import type { RawGrade, SharedAnswerCache } from './exports.js';
import type { SharedStore } from '../redis/shared-store.js';

/** An answer is at most 30 grades with a short reason each; anything larger is not cached in Redis. */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * The LLM answer cache shared by all replicas: an answer paid for on one replica serves an identical
 * request (same project, model and prompt) on any other until LLM_CACHE_TTL_MS. In-flight calls are
 * not coalesced across replicas (docs/operations.md says why); only finished answers are shared. The
 * prompt's hash is keyed (`keyed`: the deployment's key) before it names a Redis key: the prompt holds
 * the request.
 */
export function sharedAnswerCache(store: SharedStore, keyed: (key: string) => string): SharedAnswerCache {
  return {
    async get(projectId, key) {
      const json = await store.get('llm-answer-read', store.key('llm', projectId, keyed(key)));
      return json === undefined ? undefined : parseGrades(json);
    },
    set(projectId, key, grades, ttlMs) {
      void store.set(
        'llm-answer-write',
        store.key('llm', projectId, keyed(key)),
        JSON.stringify(grades),
        ttlMs,
        MAX_ANSWER_BYTES,
      );
    },
  };
}

function parseGrades(json: string): RawGrade[] | undefined {
  try {
    const value: unknown = JSON.parse(json);
    if (!Array.isArray(value)) return undefined;
    const valid = value.every(
      (grade: Partial<RawGrade> | null) =>
        grade !== null &&
        typeof grade === 'object' &&
        typeof grade.id === 'string' &&
        typeof grade.grade === 'number' &&
        typeof grade.why === 'string',
    );
    return valid ? (value as RawGrade[]) : undefined;
  } catch {
    return undefined;
  }
}
