// The team's everyday request set (eval/everyday/requests.json, issue #45) stays well formed: enough
// requests on each of the four lists, unique ids, known kinds, and every gold key in its list (the
// lists are read from ../shared/bench, so that check is skipped when the bench is not beside the repo).
// The held-out set (eval/everyday/held-out.json) is held to the same rules, with ids unique across both
// files and the same Smithery subset.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BENCH_DIR } from '../../eval/datasets.js';
import {
  checkGold,
  EVERYDAY_KINDS,
  EVERYDAY_LISTS,
  loadEverydayLists,
  readEverydayRequests,
  readHeldOutRequests,
} from '../../eval/everyday.js';

const file = readEverydayRequests();
const heldOutFile = readHeldOutRequests();

describe('everyday requests', () => {
  it('has at least 120 requests with unique ids', () => {
    expect(file.requests.length).toBeGreaterThanOrEqual(120);
    const ids = file.requests.map((request) => request.id);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });

  it('puts every request on one of the four lists, at least 20 on each', () => {
    for (const request of file.requests) expect(EVERYDAY_LISTS, request.id).toContain(request.list);
    for (const list of EVERYDAY_LISTS)
      expect(file.requests.filter((request) => request.list === list).length, list).toBeGreaterThanOrEqual(20);
  });

  it('gives every request a text, gold and only known kinds', () => {
    for (const request of file.requests) {
      expect(request.query.trim(), request.id).not.toBe('');
      expect(request.relevant.length, request.id).toBeGreaterThan(0);
      expect(request.kinds.length, request.id).toBeGreaterThan(0);
      for (const kind of request.kinds) expect(EVERYDAY_KINDS, request.id).toContain(kind);
    }
  });

  it.skipIf(!existsSync(BENCH_DIR))('has every gold key in its list (../shared/bench read at run time)', () => {
    const lists = loadEverydayLists(file);
    expect(() => checkGold(file, lists)).not.toThrow();
    // The Smithery subset stays a subset: eval must not rank the whole 9,970-tool catalog.
    expect(lists.get('smithery')!.length).toBeLessThan(1000);
  });

  it('names the request whose gold is not in its list', () => {
    const broken = { ...file, requests: [{ ...file.requests[0]!, id: 'broken-one', relevant: ['nowhere:tool'] }] };
    const lists = new Map(EVERYDAY_LISTS.map((list) => [list, [{ toolKey: 'x:y', toolName: 'y', serverName: 'x' }]]));
    expect(() => checkGold(broken, lists)).toThrow(/broken-one/);
  });
});

describe('held-out everyday requests', () => {
  it('exists next to requests.json', () => {
    expect(heldOutFile).toBeDefined();
  });
  const heldOut = heldOutFile!;

  it('has at least 120 requests, with ids unique across both files', () => {
    expect(heldOut.requests.length).toBeGreaterThanOrEqual(120);
    const ids = [...file.requests, ...heldOut.requests].map((request) => request.id);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });

  it('shares no request text with requests.json', () => {
    const norm = (text: string) => text.toLowerCase().replace(/\s+/g, ' ').trim();
    const main = new Set(file.requests.map((request) => norm(request.query)));
    expect(heldOut.requests.filter((request) => main.has(norm(request.query))).map((r) => r.id)).toEqual([]);
  });

  it('uses the same Smithery subset as requests.json', () => {
    expect(heldOut.smitheryServers).toEqual(file.smitheryServers);
  });

  it('puts every request on one of the four lists, at least 20 on each', () => {
    for (const request of heldOut.requests) expect(EVERYDAY_LISTS, request.id).toContain(request.list);
    for (const list of EVERYDAY_LISTS)
      expect(heldOut.requests.filter((request) => request.list === list).length, list).toBeGreaterThanOrEqual(20);
  });

  it('gives every request a text, gold and only known kinds', () => {
    for (const request of heldOut.requests) {
      expect(request.query.trim(), request.id).not.toBe('');
      expect(request.relevant.length, request.id).toBeGreaterThan(0);
      expect(request.kinds.length, request.id).toBeGreaterThan(0);
      for (const kind of request.kinds) expect(EVERYDAY_KINDS, request.id).toContain(kind);
    }
  });

  it.skipIf(!existsSync(BENCH_DIR))('has every gold key in its list (../shared/bench read at run time)', () => {
    const lists = loadEverydayLists(heldOut);
    expect(() => checkGold(heldOut, lists)).not.toThrow();
    expect(lists.get('smithery')!.length).toBeLessThan(1000);
  });
});
