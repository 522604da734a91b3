import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashNormalized, nameHash, NO_NAME, normalizeName, sameName } from '../src/ranking/name-key.js';

describe('tool names for the exact-name short-circuit', () => {
  it('normalise identifiers of every style to one name', () => {
    for (const name of ['create_pull_request', 'createPullRequest', 'Create-Pull-Request', 'create.pull.request']) {
      expect(normalizeName(name)).toBe('createpullrequest');
    }
    expect(normalizeName('github:create_issue')).toBe('githubcreateissue');
    expect(normalizeName('Café_Menü')).toBe('cafémenü');
  });

  it('hash a name as its normalised form hashes, without building it', () => {
    for (const name of ['create_pull_request', 'GitHub:Create-Issue', 'Café_Menü', '搜索_工具', 'a']) {
      expect(nameHash(name)).toBe(hashNormalized(normalizeName(name)));
      expect(nameHash(name)).not.toBe(NO_NAME);
    }
    expect(nameHash('')).toBe(NO_NAME);
    expect(nameHash('__--::')).toBe(NO_NAME);
  });

  it('agree with normalizeName on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (a, b) => {
        expect(nameHash(a)).toBe(hashNormalized(normalizeName(a)));
        expect(sameName(a, b)).toBe(normalizeName(a) === normalizeName(b));
        expect(
          sameName(
            a,
            a.toUpperCase().replace(/[a-z]/g, (c) => `_${c}`),
          ),
        ).toBe(normalizeName(a) === normalizeName(a.toUpperCase().replace(/[a-z]/g, (c) => `_${c}`)));
      }),
      { numRuns: 2_000 },
    );
  });
});
