/**
 * Free-form objects a tool carries (`annotations`, `inputSchema`) are passed through to results and
 * serialised again; about 4,100 levels of nesting overflowed `JSON.stringify`'s stack (a 500). The
 * deepest real `inputSchema` in ../shared/bench has 34 levels, so 64 leaves room for any real schema.
 */
export const MAX_NESTING_DEPTH = 64;

type Nesting = 'ok' | 'too_deep' | 'poisoned';

/**
 * One iterative walk (no recursion to overflow) over `value`: `too_deep` when it nests deeper than
 * `maxDepth` levels (the value itself is level 1), else `poisoned` when some object in it has a key
 * the service's JSON parser removes (`__proto__`, or `constructor` holding a `prototype`), else `ok`.
 * One walk rather than two: reading 3,000 real tools costs a few milliseconds, mostly this walk.
 */
export function inspectNesting(value: unknown, maxDepth = MAX_NESTING_DEPTH): Nesting {
  const nodes: unknown[] = [value];
  const depths: number[] = [1];
  let poisoned = false;
  while (nodes.length > 0) {
    const node = nodes.pop() as object;
    const depth = depths.pop()!;
    if (depth > maxDepth) return 'too_deep';
    if (Array.isArray(node)) {
      for (const child of node) {
        if (child !== null && typeof child === 'object') {
          nodes.push(child);
          depths.push(depth + 1);
        }
      }
      continue;
    }
    for (const key in node) {
      if (!Object.hasOwn(node, key)) continue;
      const child = (node as Record<string, unknown>)[key];
      if (key === '__proto__' || (key === 'constructor' && isObjectWithPrototype(child))) poisoned = true;
      if (child !== null && typeof child === 'object') {
        nodes.push(child);
        depths.push(depth + 1);
      }
    }
    // An own `__proto__` key is not listed by for-in in every engine: check it directly.
    if (Object.hasOwn(node, '__proto__')) poisoned = true;
  }
  return poisoned ? 'poisoned' : 'ok';
}

/** A copy of `value` without `__proto__` keys and without `constructor` keys that carry a `prototype` (secure-json-parse's rule). */
export function withoutPoisonKeys<T>(value: T): T {
  return JSON.parse(JSON.stringify(value), function (this: Record<string, unknown>, key, child: unknown) {
    if (key === '__proto__') return undefined;
    if (key === 'constructor' && isObjectWithPrototype(child)) return undefined;
    return child;
  }) as T;
}

const isObjectWithPrototype = (value: unknown) =>
  value !== null && typeof value === 'object' && Object.hasOwn(value, 'prototype');
