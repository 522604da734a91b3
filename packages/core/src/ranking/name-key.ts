// Tool names as the exact-name short-circuit compares them: lowercase letters and digits only, so
// that "create_pull_request", "createPullRequest" and "Create-Pull-Request" are one name.
import { FNV_OFFSET, fnvStep } from '../text/fnv.js';

const NOT_NAME_CHARS = /[^\p{L}\p{N}]+/gu;

/** Normalised identifier: lowercase letters and digits only ("create_pull_request" = "createPullRequest"). */
export function normalizeName(name: string): string {
  return name.toLowerCase().replace(NOT_NAME_CHARS, '');
}

/** No name: the hash of a name that normalises to nothing. */
export const NO_NAME = 0;

/**
 * A 30-bit hash of `normalizeName(name)` (NO_NAME when that is empty), computed without building the
 * normalised string: every analysed tool needs two, and building them was a tenth of the garbage a
 * cold ranking made. Equal names have equal hashes; a caller confirms a hash match with normalizeName.
 */
export function nameHash(name: string): number {
  let hash = FNV_OFFSET;
  let kept = 0;
  for (let i = 0; i < name.length; i += 1) {
    let code = name.charCodeAt(i);
    if (code >= 128) return hashNormalized(normalizeName(name));
    if (code >= 65 && code <= 90) code += 32;
    if ((code >= 97 && code <= 122) || (code >= 48 && code <= 57)) {
      hash = fnvStep(hash, code);
      kept += 1;
    }
  }
  return kept === 0 ? NO_NAME : finish(hash);
}

/** nameHash of a name that is already normalised. */
export function hashNormalized(normalized: string): number {
  if (normalized === '') return NO_NAME;
  let hash = FNV_OFFSET;
  for (let i = 0; i < normalized.length; i += 1) hash = fnvStep(hash, normalized.charCodeAt(i));
  return finish(hash);
}

// 30 bits, so the hash is a small integer on every engine; never NO_NAME.
const finish = (hash: number): number => hash & 0x3fffffff || 1;

/** Whether two names normalise alike, building the normalised strings only when the hashes agree. */
export function sameName(a: string, b: string): boolean {
  return a === b || (nameHash(a) === nameHash(b) && normalizeName(a) === normalizeName(b));
}
