// A list sent in full again is searched as the array the store holds (sentList), so the rank cache and
// the semantic stage find their work for it by the array, as for a search by reference.
import { readToolList, type ToolList } from '@catalog-search/core';
import { describe, expect, it } from 'vitest';
import { MemoryBudget } from '../../src/memory/index.js';
import { registeredList, sentList } from '../../src/tool-sets/request-tools.js';
import { ToolSetStore } from '../../src/tool-sets/tool-set-store.js';
import { sampleTools } from '../fixtures/tools.js';

const store = (cacheBytes = 64 * 1024 * 1024) =>
  new ToolSetStore({
    ttlMs: 60_000,
    cacheBytes,
    maxSharedBytes: 0,
    memory: new MemoryBudget({ maxBytes: 64 * 1024 * 1024, projectShare: 1 }),
  });

/** A body's list as the route reads it: parsed anew each time. */
function read(tools: unknown[]): ToolList {
  const reading = readToolList({ tools: JSON.parse(JSON.stringify(tools)) });
  if (!reading.ok) throw new Error('unreadable list');
  return reading.list;
}

describe('sentList', () => {
  it("gives the held array for the list this project sent last, and this request's skipped tools", () => {
    const tools = store();
    const first = sentList(read(sampleTools), 'p', tools)!;
    const { toolSet } = registeredList(first.list, 'p', tools);
    // The same list again, now with an unusable tool among it: the held array, this request's skips.
    const again = sentList(read([...sampleTools, { description: 'no name' }]), 'p', tools)!;
    expect(again.list.tools).toBe(first.list.tools);
    expect(again.list.skippedCount).toBe(1);
    expect(again.byReference).toBe(false);
    expect(registeredList(again.list, 'p', tools).toolSet).toBe(toolSet);
  });

  it("gives a new array for a changed list, another project's list, or with no store", () => {
    const tools = store();
    const first = sentList(read(sampleTools), 'p', tools)!;
    registeredList(first.list, 'p', tools);
    const changed = read(sampleTools.map((tool, index) => (index === 1 ? { ...tool, description: 'changed' } : tool)));
    expect(sentList(changed, 'p', tools)!.list.tools).toBe(changed.tools);
    const other = read(sampleTools);
    expect(sentList(other, 'q', tools)!.list.tools).toBe(other.tools);
    const none = store(0);
    registeredList(read(sampleTools), 'p', none);
    const unheld = read(sampleTools);
    expect(sentList(unheld, 'p', none)!.list.tools).toBe(unheld.tools);
    expect(sentList(undefined, 'p', tools)).toBeUndefined();
  });
});
