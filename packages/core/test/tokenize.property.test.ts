import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generalPathTerms, tokenize } from '../src/text/tokenize.js';

// ASCII text built from identifier-like pieces, so that camelCase humps, capital runs, digits and
// separators meet in every combination.
const piece = fc.constantFrom(
  'get',
  'File',
  'HTML',
  'Parser',
  'v2',
  'mp3',
  'X',
  'a',
  'ID',
  '42',
  'searchIssues',
  'the',
  '_',
  '-',
  ' ',
  '.',
  ':',
  "'",
  'S3Bucket',
  'ec2',
);
const asciiText = fc.oneof(
  fc.array(piece, { maxLength: 12 }).map((pieces) => pieces.join('')),
  fc.string({ unit: fc.integer({ min: 0, max: 127 }).map((code) => String.fromCharCode(code)), maxLength: 60 }),
);

describe('tokenize: the ASCII fast path', () => {
  it('gives the same terms as the general path (Unicode classes, no byte scan, no run memo) on ASCII text', () => {
    fc.assert(
      fc.property(asciiText, (text) => {
        const general = generalPathTerms(text);
        // Twice: the first sight of a run splits it, the second comes from the run memo.
        expect(tokenize(text)).toEqual(general);
        expect(tokenize(text)).toEqual(general);
      }),
      { numRuns: 2_000 },
    );
  });
});
