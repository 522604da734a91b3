/**
 * Free-form objects a tool carries (`annotations`, `inputSchema`) are passed through to results and
 * serialised again; about 4,100 levels of nesting overflowed `JSON.stringify`'s stack (a 500). The
 * deepest real `inputSchema` in ../shared/bench has 34 levels, so 64 leaves room for any real schema.
 */
export const MAX_NESTING_DEPTH = 64;

/** Whether `value` nests deeper than `maxDepth` levels (the value itself is level 1). Iterative: no recursion to overflow. */
export function nestsDeeperThan(value: unknown, maxDepth = MAX_NESTING_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > maxDepth) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** Keys the service's JSON parser removes (prototype poisoning); the client removes them the same way. */
export function hasPoisonKey(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    if (!Array.isArray(node) && isPoisonKeyOf(node as Record<string, unknown>)) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push(child);
    }
  }
  return false;
}

/** A copy of `value` without `__proto__` keys and without `constructor` keys that carry a `prototype` (secure-json-parse's rule). */
export function withoutPoisonKeys<T>(value: T): T {
  return JSON.parse(JSON.stringify(value), function (this: Record<string, unknown>, key, child: unknown) {
    if (key === '__proto__') return undefined;
    if (key === 'constructor' && isObjectWithPrototype(child)) return undefined;
    return child;
  }) as T;
}

function isPoisonKeyOf(node: Record<string, unknown>): boolean {
  return Object.hasOwn(node, '__proto__') || (Object.hasOwn(node, 'constructor') && isObjectWithPrototype(node.constructor));
}

const isObjectWithPrototype = (value: unknown) =>
  value !== null && typeof value === 'object' && Object.hasOwn(value, 'prototype');
