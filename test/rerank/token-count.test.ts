import fc from 'fast-check';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { countTextTokens } from '../../src/rerank/token-count.js';

describe('countTextTokens', () => {
  it('is the exact o200k count for text without long runs of one character class', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('calendar', 'list_events', ' ', '\n', 'über', '42', '.', ', ', '漢字'), { maxLength: 200 }), (parts) => {
        const text = parts.join('');
        expect(countTextTokens(text)).toBe(countTokens(text));
      }),
    );
  });

  it('counts a long run within a token per 256 characters of the exact count', () => {
    const text = `list ${'a'.repeat(2_000)} events`;
    const exact = countTokens(text);
    expect(countTextTokens(text)).toBeGreaterThanOrEqual(exact);
    expect(countTextTokens(text)).toBeLessThanOrEqual(exact + Math.ceil(2_000 / 256));
  });

  it('takes linear time on runs without spaces (hang detection: 100,000 newlines took 7.6 s before)', () => {
    for (const text of ['\n'.repeat(1e5), 'a'.repeat(1e5), '!'.repeat(1e5), ' '.repeat(1e5), 'é'.repeat(1e5)]) {
      const started = performance.now();
      expect(countTextTokens(text)).toBeGreaterThan(0);
      expect(performance.now() - started).toBeLessThan(1_000);
    }
  });
});
