import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { detachString } from '../src/text/detach.js';

describe('detachString', () => {
  it('gives the same text, whatever its characters and wherever it was cut', () => {
    const long = 'Search the web for recent news about electric cars and save a summary to a file. '.repeat(40);
    const texts = [
      '',
      'short',
      'twelve chars',
      'thirteen char',
      long.slice(7, 2_007),
      `café crème ${long}`.slice(3, 300),
      `Поиск в интернете последних новостей ${long}`.slice(2, 500),
      // A surrogate pair split by the cut, and lone surrogates.
      `😀${long}`.slice(1, 400),
      `\ud800 alone and \udfff alone ${long}`.slice(0, 100),
    ];
    for (const text of texts) expect(detachString(text)).toBe(text);
  });

  it('keeps no larger string alive: 50 cuts of 2,000 characters from 1 MB texts hold about their own size', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const heldBy = (keep: (cut: string) => string): number => {
      gc();
      const before = process.memoryUsage().heapUsed;
      const held: string[] = [];
      // Each text is made of two parts, so that cutting it first makes it one flat 1 MB string.
      for (let i = 0; i < 50; i += 1) held.push(keep(`${i} `.concat('ab'.repeat(500_000)).slice(0, 2_000)));
      gc();
      const grown = process.memoryUsage().heapUsed - before;
      expect(held.join('').length).toBe(100_000);
      return grown;
    };
    // The cuts themselves keep their texts (about 50 MB): what detaching must avoid.
    expect(heldBy((cut) => cut)).toBeGreaterThan(25_000_000);
    // Detached: 50 × 2,000 characters, 100 KB, with room for the heap's own noise.
    expect(heldBy(detachString)).toBeLessThan(5_000_000);
  });

  it("makes a flat string, not a view of another one (V8: the rank cache compares held strings with a request's)", () => {
    setFlagsFromString('--allow-natives-syntax');
    // V8's own test helper: whether two objects have the same hidden class (here, the string's representation).
    const sameRepresentation = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: string, b: string) => boolean;
    for (const text of ['a string parsed from a request body', 'строка из тела запроса, достаточно длинная']) {
      const flat = (JSON.parse(JSON.stringify({ text })) as { text: string }).text;
      const view = `xx${flat}`.slice(2);
      expect(sameRepresentation(view, flat)).toBe(false);
      expect(sameRepresentation(detachString(view), flat)).toBe(true);
    }
  });
});
