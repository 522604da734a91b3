/**
 * Whether two parsed JSON values serialise to the same JSON text: the same primitives, the same
 * arrays, and objects with the same own keys in the same order holding the same values. It never says
 * yes for values whose JSON differs; it may say no for some whose JSON is the same (NaN, an object with
 * inherited enumerable keys), which only costs the caller the slow path.
 *
 * Used to recognise a list sent again (the service's tool-set store, and `readsAs` in
 * request/tool-list.ts): walking two lists side by side costs a third of the canonical JSON and its
 * SHA-256 (docs/performance.md#a-list-sent-again-no-canonical-json-and-the-held-array), and stops at
 * the first difference. A generic deep-equal (fast-deep-equal and the like) ignores key
 * order, which the JSON text, and so a tool-set id, does not.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let index = 0; index < a.length; index += 1) if (!sameJson(a[index], b[index])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  // for…in over the left (no array of keys made) against the right's own keys in order: a key inherited
  // by the left that JSON would not write makes the walk fail, never pass.
  const rightKeys = Object.keys(right);
  let index = 0;
  for (const key in left) {
    if (key !== rightKeys[index] || !sameJson(left[key], right[key])) return false;
    index += 1;
  }
  return index === rightKeys.length;
}
