import { describe, expect, it } from 'vitest';
import { analyzeQuery, tokenize } from '../src/text/tokenize.js';
import { termOfWord, Vocabulary } from '../src/text/vocabulary.js';
import { madeUpWord } from '../../../test/fixtures/words.js';

describe('tokenize: identifiers', () => {
  it.each([
    ['getFileContents', ['get', 'file', 'content']],
    ['search_issues', ['search', 'issu']],
    ['create-pull-request', ['creat', 'pull', 'request']],
    ['github:create_issue', ['github', 'creat', 'issu']],
    ['fs.readFile', ['fs', 'read', 'file']],
    ['HTMLParser', ['html', 'parser']],
    ['XMLHttpRequest', ['xml', 'http', 'request']],
  ])('splits %s', (input, expected) => {
    expect(tokenize(input)).toEqual(expected);
  });

  it('splits letters from digits and keeps short mixed words whole', () => {
    expect(tokenize('v2Api')).toEqual(['2', 'api', 'v2api']);
    expect(tokenize('convert mp3')).toEqual(['convert', 'mp', '3', 'mp3']);
  });

  it('lowercases, stems and drops stop words and request filler', () => {
    expect(tokenize('Please Search THE Repositories for me')).toEqual(['search', 'repositori']);
    expect(tokenize('searching searched searches')).toEqual(['search', 'search', 'search']);
  });

  it('folds Latin accents, so that words typed without them match: then stems them as any word', () => {
    expect(tokenize('Café résumé')).toEqual(['cafe', 'resum']);
    expect(tokenize('Café résumé')).toEqual(tokenize('cafe resume'));
  });
});

describe('tokenize: Chinese, Japanese, Korean', () => {
  it('turns CJK runs into character bigrams so words match without a dictionary', () => {
    expect(tokenize('必应搜索')).toEqual(['必应', '应搜', '搜索']);
    expect(tokenize('检索')).toEqual(['检索']);
    expect(tokenize('ファイル検索')).toEqual(['ファ', 'ァイ', 'イル', 'ル検', '検索']);
  });

  it('a lone CJK character stays a unigram, and mixed runs split at the script edge', () => {
    expect(tokenize('搜')).toEqual(['搜']);
    expect(tokenize('github搜索')).toEqual(['github', '搜索']);
  });

  it('lets a Chinese query find words inside a longer Chinese description', () => {
    const doc = new Set(tokenize('使用必应搜索指定的关键词，并返回搜索结果列表'));
    expect(tokenize('搜索结果').every((term) => doc.has(term))).toBe(true);
  });
});

describe('analyzeQuery: negations', () => {
  it('sets apart the words a negation governs, up to the clause end', () => {
    const query = analyzeQuery('search files but not images, then zip them');
    expect(query.terms).toEqual(['search', 'file', 'zip']);
    expect(query.negated).toEqual(['imag']);
  });

  it("understands contractions and 'without'", () => {
    expect(analyzeQuery("I don't want email").negated).toEqual(['email']);
    expect(analyzeQuery('convert pdf without ocr').negated).toEqual(['ocr']);
  });

  it('keeps the surface word of each term for explanations', () => {
    expect(analyzeQuery('repositories').surface.get('repositori')).toBe('repositories');
  });
});

describe('tokenize: the run memo', () => {
  it('gives the same terms for runs seen before, also after it has grown, filled and started over', () => {
    // 70,000 distinct runs: more than the memo's largest table holds and than the vocabulary keeps,
    // so the memo doubles, is cleared, and the vocabulary is renewed along the way. Every fifth is an
    // identifier with several terms, which the memo stores apart.
    const words = Array.from({ length: 70_000 }, (_, i) =>
      i % 5 === 0 ? `get${madeUpWord(i).replace('zq', 'Zq')}Items` : madeUpWord(i),
    );
    const sample = [
      'getFileContents',
      'searchIssues',
      'mp3',
      'the',
      'repositories',
      'HTMLParser',
      words[5]!,
      words[10]!,
    ];
    const expected = sample.map((word) => tokenize(word));
    for (let from = 0; from < words.length; from += 5_000) {
      tokenize(words.slice(from, from + 5_000).join(' '));
      expect(tokenize(sample.join(' '))).toEqual(expected.flat());
    }
  });
});

describe('the vocabulary: joined words remembered', () => {
  it("gives termOfWord's term, remembers a bounded number of words, and counts their bytes", () => {
    const vocabulary = new Vocabulary();
    const empty = vocabulary.bytes;
    for (const word of ['login', 'signup', 'unstaged', 'webpages', 'theand', 'a'])
      expect(vocabulary.termOfJoinedWord(word)).toBe(termOfWord(word));
    expect(vocabulary.bytes).toBeGreaterThan(empty);
    // Many more than it keeps: still the same terms, and the bytes stay bounded.
    let most = 0;
    for (let i = 0; i < 5_000; i += 1) {
      const word = madeUpWord(i).slice(0, 14);
      expect(vocabulary.termOfJoinedWord(word)).toBe(termOfWord(word));
      most = Math.max(most, vocabulary.bytes);
    }
    expect(most - empty).toBeLessThan(100_000);
    expect(vocabulary.termOfJoinedWord('signup')).toBe(termOfWord('signup'));
    vocabulary.clear();
    expect(vocabulary.bytes).toBe(empty);
  });
});
