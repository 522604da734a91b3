// The tool-set id is shared by every replica (and by Redis and the client): a list sent again is
// recognised without its canonical JSON (tool-set-store.ts), and the id it gets must be the one the
// canonical JSON gives, on every bench catalog, for the same list and for lists changed a little.
import { readToolList, toolSetId, type ToolInfo } from '@catalog-search/core';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BENCH_DIR, loadCatalog } from '../../eval/datasets.js';
import { MemoryBudget } from '../../src/memory/exports.js';
import { ToolSetStore } from '../../src/tool-sets/tool-set-store.js';
import { sampleTools } from '../fixtures/tools.js';

const CATALOGS = [
  'smithery_catalog',
  'livemcpbench',
  'mcptoolbench_pp',
  'toolbench_stb',
  'toollens',
  'toolret_apibank',
  'toolret_apigen',
  'toolret_gorilla_hf',
  'toolret_toolink',
];
const haveBenchData = existsSync(join(BENCH_DIR, 'smithery_catalog', 'catalog.jsonl'));

/** The list as the service has it: a body parsed anew, read through core. */
function received(tools: unknown): ToolInfo[] {
  const reading = readToolList({ tools: JSON.parse(JSON.stringify(tools)) });
  if (!reading.ok) throw new Error('unreadable list');
  return reading.list.tools;
}

/** Small changes a router's next list may have: each must get its own, canonical id. */
function variants(tools: ToolInfo[]): ToolInfo[][] {
  const copy = () => structuredClone(tools);
  const last = tools.length - 1;
  const withSchema = tools.findIndex(
    (tool) => tool.inputSchema !== undefined && Object.keys(tool.inputSchema).length > 1,
  );
  const out: ToolInfo[][] = [
    copy(),
    copy().reverse(),
    copy().slice(0, last),
    copy().map((tool, index) => (index === last ? { ...tool, description: `${tool.description ?? ''} (v2)` } : tool)),
    copy().map((tool, index) => (index === 0 ? { ...tool, title: 'A title' } : tool)),
  ];
  if (withSchema >= 0) {
    // The same schema keys in another order: another canonical JSON, so another id.
    const reordered = copy();
    const schema = reordered[withSchema]!.inputSchema!;
    reordered[withSchema]!.inputSchema = Object.fromEntries(Object.entries(schema).reverse());
    out.push(reordered);
  }
  return out;
}

async function expectCanonicalIds(tools: ToolInfo[]): Promise<void> {
  const store = new ToolSetStore({
    ttlMs: 60_000,
    cacheBytes: 256 * 1024 * 1024,
    maxSharedBytes: 0,
    memory: new MemoryBudget({ maxBytes: 512 * 1024 * 1024, projectShare: 1 }),
  });
  const first = received(tools);
  const id = store.register('p', first).id;
  expect(id).toBe(await toolSetId(first));
  // Sent again (a new parse of the same body): the same id, without the canonical JSON.
  expect(store.register('p', received(tools)).id).toBe(id);
  for (const variant of variants(first)) {
    const list = received(variant);
    expect(store.register('p', list).id).toBe(await toolSetId(list));
    // And back to the first list, recognised again after another list came between.
    expect(store.register('p', received(tools)).id).toBe(id);
  }
}

describe('tool-set ids of lists sent again', () => {
  it("are the canonical JSON's id for the sample list, the same list again and changed copies", async () => {
    await expectCanonicalIds(sampleTools);
  });

  it.skipIf(!haveBenchData)("are the canonical JSON's id on every bench catalog", { timeout: 60_000 }, async () => {
    for (const name of CATALOGS) {
      // The first 1,500 tools (smithery_catalog has 9,970): the bench's lists are 1,000.
      const catalog = loadCatalog(name, 1_500);
      if (catalog) await expectCanonicalIds(catalog.tools);
    }
  });

  it("are given per project: another project's list sent again is not this one's", async () => {
    const store = new ToolSetStore({
      ttlMs: 60_000,
      cacheBytes: 64 * 1024 * 1024,
      maxSharedBytes: 0,
      memory: new MemoryBudget({ maxBytes: 64 * 1024 * 1024, projectShare: 1 }),
    });
    const a = received(sampleTools);
    const b = received(sampleTools.slice(1));
    expect(store.register('a', a).id).toBe(await toolSetId(a));
    expect(store.register('b', b).id).toBe(await toolSetId(b));
    expect(store.register('a', received(sampleTools.slice(1))).id).toBe(await toolSetId(b));
    expect(store.register('b', received(sampleTools)).id).toBe(await toolSetId(a));
  });
});
