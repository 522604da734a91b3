import { describe, expect, it } from 'vitest';
import { MemoryBudget } from '../../src/memory/exports.js';
import { ToolSetStore } from '../../src/tool-sets/tool-set-store.js';
import { manyTools } from '../fixtures/tools.js';

describe('the tool-set store in the cache budget', () => {
  it("keeps lists in process within a project's share: one project sending many lists does not evict another's", async () => {
    const memory = new MemoryBudget({ maxBytes: 4 * 1024 * 1024, projectShare: 0.25 });
    const store = new ToolSetStore({ ttlMs: 60_000, cacheBytes: 64 * 1024 * 1024, maxSharedBytes: 0, memory });
    const kept = store.register('quiet', manyTools(100));
    for (let at = 0; at < 40; at += 1)
      store.register(
        'busy',
        manyTools(100).map((tool) => ({ ...tool, description: `${tool.description} ${at}` })),
      );
    expect(memory.projectBytes('busy')).toBeLessThanOrEqual(1024 * 1024);
    expect(await store.resolve('quiet', kept.id)).toHaveLength(100);
    expect(store.localBytes).toBe(memory.usage().byCache['tool-sets']);
    expect(memory.usage().usedBytes).toBeLessThanOrEqual(4 * 1024 * 1024);
  });

  it('keeps no list larger than TOOL_SET_CACHE_BYTES in process', async () => {
    const memory = new MemoryBudget({ maxBytes: 64 * 1024 * 1024, projectShare: 1 });
    const store = new ToolSetStore({ ttlMs: 60_000, cacheBytes: 1_000, maxSharedBytes: 0, memory });
    const { id } = store.register('p', manyTools(100));
    expect(await store.resolve('p', id)).toBeUndefined();
    expect(store.localBytes).toBe(0);
  });
});
