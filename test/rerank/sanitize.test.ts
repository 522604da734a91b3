import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plainTextLine, sanitizeData, sanitizeLine } from '../../src/rerank/sanitize.js';

describe('plainTextLine (the explanation callers get)', () => {
  it('removes markdown and HTML, keeping link text and identifiers', () => {
    expect(plainTextLine('Uses **create_issue** to `file` a [bug report](https://evil.example/x?a=(1))', 200)).toBe(
      'Uses create_issue to file a bug report',
    );
    expect(plainTextLine('<script>alert(1)</script><b>Sends</b> <a href="x">mail</a>', 200)).toBe(
      'alert(1) Sends mail',
    );
    expect(plainTextLine('# Title\n> quoted _emphasis_ of snake_case_name', 200)).toBe(
      'Title quoted emphasis of snake_case_name',
    );
    expect(plainTextLine('![alt text](javascript:alert(1)) <!-- hidden --> ok', 200)).toBe('alt text ok');
  });

  it('is always one short line of text without markup or control characters', () => {
    fc.assert(
      fc.property(
        fc.string({
          maxLength: 3_000,
          unit: fc.constantFrom(
            'a',
            ' ',
            '\n',
            '\r',
            '\u2028',
            '\u0000',
            '\u202e',
            '<',
            '>',
            '`',
            '*',
            '[',
            ']',
            '(',
            ')',
            '#',
            '_',
            'é',
          ),
        }),
        (text) => {
          const line = plainTextLine(text, 200);
          expect(line.length).toBeLessThanOrEqual(200);
          expect(line).not.toMatch(/[\p{Cc}\p{Cf}\u2028\u2029<>`*[\]]/u);
          expect(line).toBe(line.trim());
        },
      ),
    );
  });

  it('takes linear time on hostile text (hang detection)', () => {
    for (const text of ['['.repeat(1e5), '<'.repeat(1e5), `${'[a]('.repeat(2e4)}`, '<!--'.repeat(3e4)]) {
      const started = performance.now();
      plainTextLine(text, 200);
      expect(performance.now() - started).toBeLessThan(1_000);
    }
  });
});

describe('sanitizeLine and sanitizeData on long text', () => {
  it('read only the start of a long text, and mark that it went on', () => {
    const long = `Lists invoices.   ${'x'.repeat(180 * 1024)}`;
    const started = performance.now();
    for (let at = 0; at < 100; at += 1) sanitizeData(long, 200);
    expect(performance.now() - started).toBeLessThan(1_000); // hang detection: 100 × 180 KB
    expect(sanitizeData(long, 200)).toMatch(/^Lists invoices\. x+…$/);
    expect(sanitizeData(long, 200).length).toBeLessThanOrEqual(200);
    // Mostly whitespace: a shorter line, still marked as cut.
    expect(sanitizeLine(`a${' '.repeat(5_000)}b`, 200)).toBe('a…');
    expect(sanitizeLine('short | <b>', 200)).toBe('short | <b>');
    expect(sanitizeData('short | <b>', 200)).toBe('short ¦ ‹b›');
  });
});
