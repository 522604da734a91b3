import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadLanguages, rankTools, type ToolListSearchRequest } from '../src/index.js';
import { englishSkeleton } from '../src/languages/consonant-skeleton.js';
import { hangulSkeleton } from '../src/languages/ko/romanize.js';
import { koreanWords } from '../src/languages/ko/words.js';

const sample = JSON.parse(
  readFileSync(new URL('../../../examples/search-request.json', import.meta.url), 'utf8'),
) as ToolListSearchRequest;
const first = (query: string) => rankTools({ query: [query], tools: sample.tools })[0];

describe('Korean words', () => {
  it('particles and endings come off, filler words are none', () => {
    expect(koreanWords('데이터베이스에 어떤 테이블이 있어?').map((word) => word.text)).toEqual([
      '데이터베이스',
      '테이블',
    ]);
    expect(koreanWords('오후 3시 회의 취소해 줘').map((word) => word.text)).toEqual(['회의', '취소']);
  });

  it.each([
    ['캘린더', 'calendar'],
    ['깃허브', 'github'],
    ['슬랙', 'slack'],
    ['노션', 'notion'],
    ['테이블', 'table'],
    ['폴더', 'folder'],
    ['리포지토리', 'repository'],
    ['링크', 'link'],
  ])('the loanword %s has the consonants of %s', (hangul, word) => {
    expect([englishSkeleton(word), englishSkeleton(word.replace('th', 't.h'))]).toContain(hangulSkeleton(hangul));
  });
});

describe('loaded', () => {
  beforeAll(() => loadLanguages(['ko']));

  it("Hangul loanwords match the list's own English words", () => {
    expect(first('내일 캘린더에 뭐 있어?')!.explanation).toContain('"calendar" (캘린더)');
    const table = first('데이터베이스에 어떤 테이블이 있어?')!;
    expect(table.tool.toolKey).toBe('postgres:list_tables');
    expect(table.explanation).toContain('(2 of 2 query words)');
    expect(first('밥에게 이메일 보내 줘')!.tool.toolKey).toBe('gmail:send_email');
    expect(first('슬랙으로 팀에 메시지 보내 줘')!.tool.toolKey).toBe('slack:post_message');
  });

  it('the core words read what is no loanword: 회의 취소 is cancelling a meeting', () => {
    expect(first('오후 3시 회의 취소해 줘')!.tool.toolKey).toBe('gcal:delete_event');
  });
});
