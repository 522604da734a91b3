import { describe, expect, it } from 'vitest';
import { boundedKey, ENTRY_OVERHEAD_BYTES, MemoryBudget, stringBytes } from '../../src/memory/exports.js';

const KB = 1024;
/** A cache of strings whose values count their own characters. */
const textCache = (budget: MemoryBudget, name = 'text', onRemove?: (value: string, projectId: string) => void) =>
  budget.cache<string>(name, { sizeOf: stringBytes, ...(onRemove ? { onRemove } : {}) });
const fill = (cache: ReturnType<typeof textCache>, projectId: string, entries: number, bytes: number) => {
  for (let at = 0; at < entries; at += 1) cache.set(projectId, `${projectId}-${at}`, 'x'.repeat(bytes / 2));
};

describe('MemoryBudget', () => {
  it('counts keys and values in bytes and never holds more than the budget', () => {
    const budget = new MemoryBudget({ maxBytes: 100 * KB, projectShare: 1 });
    const cache = textCache(budget);
    fill(cache, 'p', 500, KB);
    const { usedBytes, byCache } = budget.usage();
    expect(usedBytes).toBeLessThanOrEqual(100 * KB);
    expect(usedBytes).toBeGreaterThan(80 * KB);
    expect(byCache.text).toBe(usedBytes);
    expect(cache.get('p', 'p-499')).toBeDefined(); // the newest stay
    expect(cache.get('p', 'p-0')).toBeUndefined(); // the oldest went
  });

  it('keeps a project within its share, evicting its own least recently used entries', () => {
    const budget = new MemoryBudget({ maxBytes: 100 * KB, projectShare: 0.25 });
    const cache = textCache(budget);
    fill(cache, 'other', 10, KB);
    fill(cache, 'greedy', 200, KB);
    expect(budget.projectBytes('greedy')).toBeLessThanOrEqual(25 * KB);
    for (let at = 0; at < 10; at += 1) expect(cache.get('other', `other-${at}`)).toBeDefined();
  });

  it('trims the largest projects first when the whole budget is full (one project cannot evict everyone)', () => {
    const budget = new MemoryBudget({ maxBytes: 100 * KB, projectShare: 0.5 });
    const cache = textCache(budget);
    fill(cache, 'small', 5, KB); // ~6 KB
    for (let project = 0; project < 6; project += 1) fill(cache, `big-${project}`, 60, KB);
    expect(budget.usage().usedBytes).toBeLessThanOrEqual(100 * KB);
    // The small project is below the common level the big ones were cut to: it lost nothing.
    for (let at = 0; at < 5; at += 1) expect(cache.get('small', `small-${at}`)).toBeDefined();
    const sizes = Array.from({ length: 6 }, (_, project) => budget.projectBytes(`big-${project}`));
    // Near one common level: apart by at most what one trim removes (5 % of the budget) and an entry.
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(5 * KB + 2 * (KB + ENTRY_OVERHEAD_BYTES + 40));
  });

  it('refuses a value larger than a project share, and replaces without double counting', () => {
    const budget = new MemoryBudget({ maxBytes: 10 * KB, projectShare: 0.5 });
    const cache = textCache(budget);
    expect(cache.set('p', 'huge', 'x'.repeat(6 * KB))).toBe(false);
    expect(budget.usage().usedBytes).toBe(0);
    cache.set('p', 'k', 'a'.repeat(100));
    const once = budget.usage().usedBytes;
    cache.set('p', 'k', 'b'.repeat(100));
    expect(budget.usage().usedBytes).toBe(once);
    expect(cache.get('p', 'k')).toBe('b'.repeat(100));
  });

  it('shares one budget between caches, keeps projects apart, and tells each cache what left it', () => {
    const removed: string[] = [];
    const budget = new MemoryBudget({ maxBytes: 20 * KB, projectShare: 1 });
    const first = textCache(budget, 'first', (value, projectId) => removed.push(`${projectId}:${value.length}`));
    const second = textCache(budget, 'second');
    first.set('a', 'k', 'x'.repeat(KB));
    expect(first.get('b', 'k')).toBeUndefined();
    expect(second.get('a', 'k')).toBeUndefined();
    fill(second, 'a', 40, KB);
    expect(first.get('a', 'k')).toBeUndefined();
    expect(removed).toEqual(['a:1024']);
    expect(() => textCache(budget, 'first')).toThrow(/exists already/);
  });

  it('finds an entry by a held key as by its key: within its cache and project, and not once evicted', () => {
    const budget = new MemoryBudget({ maxBytes: 20 * KB, projectShare: 1 });
    const first = textCache(budget, 'first');
    const second = textCache(budget, 'second');
    const held = first.heldKey('k');
    expect(first.getHeld('a', held)).toBeUndefined();
    first.set('a', 'k', 'first value');
    second.set('a', 'k', 'second value');
    expect(first.getHeld('a', held)).toBe('first value');
    expect(second.getHeld('a', second.heldKey('k'))).toBe('second value');
    expect(first.getHeld('b', held)).toBeUndefined();
    // A lookup by held key counts as a use: the entry outlives one written after it when the project's
    // share fills up, and goes once it is the least recently used.
    first.set('a', 'old', 'x'.repeat(KB));
    first.getHeld('a', held);
    fill(second, 'a', 17, KB);
    expect(first.get('a', 'old')).toBeUndefined();
    expect(first.getHeld('a', held)).toBe('first value');
    fill(second, 'a', 40, KB);
    expect(first.getHeld('a', held)).toBeUndefined();
  });

  it('sets memory held outside the caches aside, and resizing an entry is not a removal', () => {
    const removed: string[] = [];
    const budget = new MemoryBudget({ maxBytes: 100 * KB, projectShare: 1 });
    budget.reserve('memos', 60 * KB);
    const cache = budget.cache<{ bytes: number }>('sized', {
      sizeOf: (value) => value.bytes,
      onRemove: (_, projectId) => removed.push(projectId),
    });
    const value = { bytes: KB };
    cache.set('p', 'k', value);
    value.bytes = 20 * KB;
    cache.set('p', 'k', value); // the same object, grown
    expect(removed).toEqual([]);
    expect(budget.usage().byCache).toMatchObject({ memos: 60 * KB });
    fill(textCache(budget), 'q', 40, KB);
    expect(budget.usage().usedBytes).toBeLessThanOrEqual(100 * KB);
    expect(budget.usage().byCache.memos).toBe(60 * KB);
    expect(() => budget.reserve('too much', 50 * KB)).toThrow(RangeError);
  });

  it('expires entries after their TTL', async () => {
    const budget = new MemoryBudget({ maxBytes: 10 * KB, projectShare: 1 });
    const cache = budget.cache<string>('ttl', { sizeOf: stringBytes, ttlMs: 300 });
    cache.set('p', 'k', 'v');
    expect(cache.get('p', 'k')).toBe('v');
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(cache.get('p', 'k')).toBeUndefined();
    expect(budget.usage().usedBytes).toBe(0);
  });
});

describe('boundedKey', () => {
  it('keeps short keys and hashes long ones to a fixed size', () => {
    expect(boundedKey('calendar_list_events')).toBe('calendar_list_events');
    const long = boundedKey('d'.repeat(180 * KB));
    expect(long).toMatch(/^#[\w-]{43}$/);
    expect(boundedKey('d'.repeat(180 * KB - 1) + 'e')).not.toBe(long);
    expect(boundedKey('#short')).toMatch(/^#[\w-]{43}$/); // never mistaken for a hash
  });
});
