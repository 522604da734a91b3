// sameJson recognises a tool list sent again without its canonical JSON; a yes must always mean the
// same JSON text, or a list would get another list's tool-set id.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sameJson } from '../src/index.js';

/** A copy of a JSON value with one change somewhere (a value, a key, the order of two keys), or none. */
function changed(value: unknown, at: number): unknown {
  if (Array.isArray(value)) {
    if (value.length === 0) return at % 2 === 0 ? [null] : value;
    const index = at % value.length;
    return value.map((item, i) => (i === index ? changed(item, Math.floor(at / value.length)) : item));
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 0) return at % 2 === 0 ? { k: 1 } : {};
    if (entries.length > 1 && at % 5 === 0) return Object.fromEntries([...entries.slice(1), entries[0]!]);
    const index = at % entries.length;
    return Object.fromEntries(
      entries.map(([key, item], i) =>
        i === index ? [key, changed(item, Math.floor(at / entries.length))] : [key, item],
      ),
    );
  }
  if (typeof value === 'string') return at % 3 === 0 ? value : `${value}x`;
  if (typeof value === 'number') return at % 3 === 0 ? value : value + 1;
  return at % 3 === 0 ? value : value === null ? 0 : null;
}

describe('sameJson', () => {
  it('says yes exactly when two parsed JSON values serialise alike (random values and changed copies)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(), (value, at) => {
        const a = JSON.parse(JSON.stringify(value)) as unknown;
        const b = JSON.parse(JSON.stringify(changed(a, at))) as unknown;
        expect(sameJson(a, b)).toBe(JSON.stringify(a) === JSON.stringify(b));
        expect(sameJson(a, JSON.parse(JSON.stringify(a)))).toBe(true);
      }),
      { numRuns: 2_000 },
    );
  });

  it('tells apart the same keys in another order, and arrays from objects', () => {
    expect(sameJson({ type: 'object', properties: {} }, { properties: {}, type: 'object' })).toBe(false);
    expect(sameJson([1, 2], { 0: 1, 1: 2 })).toBe(false);
    expect(sameJson({ a: [1, { b: 'c' }] }, { a: [1, { b: 'c' }] })).toBe(true);
    expect(sameJson({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(sameJson({ a: 1, b: 2 }, { a: 1 })).toBe(false);
  });

  it('says no, never yes, when a key JSON would not write is inherited', () => {
    const inherits = Object.create({ extra: 1 }) as Record<string, unknown>;
    inherits.a = 1;
    expect(sameJson(inherits, { a: 1 })).toBe(false);
  });
});
