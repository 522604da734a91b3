// A sub-query's hits per matched tool (ranking/tool-hits.ts): one run of codes per tool, in the order
// the tools were first hit.
import { describe, expect, it } from 'vitest';
import { ToolHits } from '../src/ranking/tool-hits.js';

const codesOf = (hits: ToolHits, tool: number): number[] => Array.from(hits.of(tool));

describe('ToolHits', () => {
  it('keeps each tool its own codes, in the order the tools came', () => {
    const hits = new ToolHits(10, 2);
    hits.add(7, 3);
    hits.add(7, 15);
    hits.add(2, 8);
    hits.add(9, 1);
    hits.add(9, 4);
    hits.add(9, 6);
    expect(hits.size).toBe(3);
    expect([hits.tool(0), hits.tool(1), hits.tool(2)]).toEqual([7, 2, 9]);
    expect(codesOf(hits, 7)).toEqual([3, 15]);
    expect(codesOf(hits, 2)).toEqual([8]);
    expect(codesOf(hits, 9)).toEqual([1, 4, 6]);
    expect(hits.has(5)).toBe(false);
    expect(codesOf(hits, 5)).toEqual([]);
  });

  it('refuses a tool whose hits do not come in one run', () => {
    const hits = new ToolHits(4, 4);
    hits.add(1, 0);
    hits.add(2, 0);
    expect(() => hits.add(1, 5)).toThrow(/one run/);
  });

  it("drops the last tool's rejected codes, and the tool itself when none is left", () => {
    const hits = new ToolHits(6, 4);
    hits.add(0, 10);
    hits.add(3, 11);
    hits.add(3, 12);
    hits.add(3, 13);
    // A tool that is not the last one added is left as it is.
    hits.keepLast(0, () => false);
    expect(codesOf(hits, 0)).toEqual([10]);
    hits.keepLast(3, (code) => code !== 12);
    expect(codesOf(hits, 3)).toEqual([11, 13]);
    hits.keepLast(3, () => false);
    expect(hits.has(3)).toBe(false);
    expect(hits.size).toBe(1);
    hits.add(4, 20);
    expect(codesOf(hits, 4)).toEqual([20]);
    expect(codesOf(hits, 0)).toEqual([10]);
  });
});
