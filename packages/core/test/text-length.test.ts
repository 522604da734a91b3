import { describe, expect, it } from 'vitest';
import { codePointLength, codePointPrefix, exceedsCodePoints } from '../src/index.js';

describe('text limits count code points', () => {
  it('counts 600 emoji as 600 characters, not 1,200', () => {
    const emoji = '😀'.repeat(600);
    expect(emoji.length).toBe(1200);
    expect(codePointLength(emoji)).toBe(600);
    expect(exceedsCodePoints(emoji, 600)).toBe(false);
    expect(exceedsCodePoints(emoji, 599)).toBe(true);
  });

  it('cuts a prefix without splitting a surrogate pair', () => {
    expect(codePointPrefix('a😀b😀', 2)).toBe('a😀');
    expect(codePointPrefix('abc', 10)).toBe('abc');
    expect(codePointLength('a😀b', 1)).toBeGreaterThan(1);
  });
});
