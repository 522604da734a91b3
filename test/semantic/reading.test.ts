import { describe, expect, it } from 'vitest';
import { LOCAL_SCRIPTS } from '../../src/semantic/local-encoder.js';
import { readsText } from '../../src/semantic/reading.js';

describe('which requests an encoder reads (its scripts)', () => {
  it('the embedded encoder (Latin script) reads English, not Japanese, Chinese, Korean or Russian', () => {
    expect(readsText('what is on my plate tomorrow', LOCAL_SCRIPTS)).toBe(true);
    expect(readsText('déployer l’application', LOCAL_SCRIPTS)).toBe(true);
    for (const request of [
      'カレンダーに明日の会議を追加して',
      '搜索明天的会议',
      '내일 회의 일정',
      'найти встречи на завтра',
    ])
      expect(readsText(request, LOCAL_SCRIPTS)).toBe(false);
  });

  it('reads by the share of letters: a mostly English request naming one Japanese word is read, the reverse is not', () => {
    expect(readsText('add the 会議 to my calendar for tomorrow', LOCAL_SCRIPTS)).toBe(true);
    expect(readsText('カレンダーに明日のmeetingを追加して', LOCAL_SCRIPTS)).toBe(false);
  });

  it('text without letters is read (digits and signs are common to every script); undefined scripts read everything', () => {
    expect(readsText('2026-11-28 12:00', LOCAL_SCRIPTS)).toBe(true);
    expect(readsText('カレンダーに明日の会議を追加して', undefined)).toBe(true);
    expect(readsText('カレンダーに明日の会議を追加して', ['Latin', 'Han', 'Hiragana', 'Katakana'])).toBe(true);
  });
});
