import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadLanguages, rankTools, type ToolInfo, type ToolListSearchRequest } from '../src/index.js';
import { dictionaryLoaded, japaneseWords } from '../src/languages/ja/words.js';
import { tokenize } from '../src/text/tokenize.js';

// The README's sample list (English tools), as the service and the client's fallback rank it.
const sample = JSON.parse(
  readFileSync(new URL('../../../examples/search-request.json', import.meta.url), 'utf8'),
) as ToolListSearchRequest;
const rank = (query: string, tools: ToolInfo[] = sample.tools) => rankTools({ query: [query], tools });
const keys = (query: string, tools?: ToolInfo[]) => rank(query, tools).map((r) => r.tool.toolKey);

// As the service does before its first request (the dictionary is not imported with core).
beforeAll(() => loadLanguages(['ja']));

describe('the dictionary is read only for a Japanese request', () => {
  // First in this file: module state is per test file.
  it('English, Chinese and Korean requests never read it; the first Japanese one does', () => {
    rank('add tomorrow’s meeting to my calendar');
    rank('在日历中添加明天的会议');
    rank('내일 회의를 캘린더에 추가');
    expect(dictionaryLoaded()).toBe(false);
    rank('カレンダーに会議を追加');
    expect(dictionaryLoaded()).toBe(true);
  });
});

describe('Japanese requests find English tools', () => {
  it('"カレンダーに明日の会議を追加して" ranks gcal:create_event first, as its English original does', () => {
    expect(keys('add tomorrow’s meeting to my calendar')[0]).toBe('gcal:create_event');
    expect(keys('カレンダーに明日の会議を追加して')[0]).toBe('gcal:create_event');
  });

  it.each([
    ['メールを送って', 'gmail:send_email'],
    ['スラックにメッセージを投稿', 'slack:post_message'],
    ['新しいブランチを作成', 'github:create_branch'],
  ])('%s → %s', (query, expected) => {
    expect(keys(query)[0]).toBe(expected);
  });

  it('explains which word matched through which translation, not the whole request', () => {
    const query = 'カレンダーに明日の会議を追加して';
    const explanation = rank(query)[0]!.explanation;
    expect(explanation).toContain('"meeting" (会議)');
    expect(explanation).toContain('"calendar" (カレンダー)');
    expect(explanation).toMatch(/\(\d of \d query words\)/);
    expect(explanation).not.toContain(query);
  });

  it('with a tool described in Japanese, the explanation names words, not bigrams across two of them', () => {
    const tools: ToolInfo[] = [
      ...sample.tools,
      { toolKey: 'jp:add_event', toolName: 'add_event', serverName: 'JP', description: 'カレンダーに会議を追加します' },
    ];
    const explanation = rank('カレンダーに明日の会議を追加して', tools)[0]!.explanation!;
    expect(explanation).toContain('"カレンダー", "会議", "追加" in description');
    for (const fragment of ['ーに', '議を', 'を追', '加し']) expect(explanation).not.toContain(`"${fragment}"`);
  });

  it('a translation is weaker than the word itself: a tool with the English word in its name is not beaten by a synonym', () => {
    const tools: ToolInfo[] = [
      { toolKey: 'a:send_email', toolName: 'send_email', serverName: 'A', description: 'Send an email.' },
      { toolKey: 'b:dispatch', toolName: 'dispatch', serverName: 'B', description: 'Dispatch a job.' },
    ];
    expect(keys('メールを送って', tools)).toEqual(['a:send_email', 'b:dispatch']);
    // Relevance is calibrated per word of the request: both words matched is a confident answer.
    expect(rank('メールを送って', tools)[0]!.relevance).toBeGreaterThan(0.6);
  });

  it('a katakana loanword reads as the English word it sounds like: メール favours email over "post"', () => {
    const mail = japaneseWords('メール')![0]!.glosses;
    expect(mail).toEqual(['email', 'mail']);
    // The Gmail tools come before Slack's post_message, which matched "post" on main.
    const ranked = keys('メールを送って');
    expect(ranked.slice(0, 2)).toEqual(['gmail:send_email', 'gmail:search_emails']);
    expect(rank('メールを送って').some((r) => r.explanation.includes('"post" (メール)'))).toBe(false);
    // A loanword whose later senses have no gloss that sounds like it keeps them (アップ: uploading).
    expect(japaneseWords('アップ')![0]!.glosses).toContain('uploading');
  });

  it('segments verbs in their inflected forms and katakana loanwords by the dictionary', () => {
    const words = (text: string) => japaneseWords(text)!.map((word) => [word.text, word.glosses[0]]);
    expect(words('メールを送って')).toEqual([
      ['メール', 'email'],
      ['送っ', 'send'],
    ]);
    expect(words('ブランチをマージ')).toEqual([
      ['ブランチ', 'branch'],
      ['マージ', 'merge'],
    ]);
    // No word is found inside a katakana word the dictionary does not know.
    expect(words('イシュー')).toEqual([]);
    // Half-width katakana is folded first (NFKC).
    expect(rank('ﾒｰﾙを送って')[0]!.tool.toolKey).toBe('gmail:send_email');
  });
});

describe('other scripts and forms', () => {
  const chinese: ToolInfo[] = [
    { toolKey: 'cal:add', toolName: 'add_event', serverName: '日历', description: '在日历中添加会议和活动。' },
    { toolKey: 'mail:send', toolName: 'send_mail', serverName: '邮件', description: '发送电子邮件给联系人。' },
  ];
  const korean: ToolInfo[] = [
    {
      toolKey: 'cal:add',
      toolName: 'add_event',
      serverName: '캘린더',
      description: '캘린더에 회의 일정을 추가합니다.',
    },
    { toolKey: 'mail:send', toolName: 'send_mail', serverName: '메일', description: '이메일을 보냅니다.' },
  ];

  it('Chinese and Korean requests against same-language descriptions still work (bigrams; no dictionary)', () => {
    expect(keys('添加明天的会议', chinese)[0]).toBe('cal:add');
    expect(keys('发送邮件', chinese)[0]).toBe('mail:send');
    expect(keys('회의 일정 추가', korean)[0]).toBe('cal:add');
  });

  it('CJK explanations name the matched words, not the whole request', () => {
    const query = '在日历中添加明天的会议';
    const explanation = rank(query, chinese)[0]!.explanation;
    expect(explanation).toContain('"会议"');
    expect(explanation).not.toContain(query);
    const korean2 = '캘린더에회의추가';
    expect(rank(korean2, korean)[0]!.explanation).not.toContain(korean2);
  });

  it('a Chinese request against English tools is answered as before: nothing, and says nothing false', () => {
    expect(rank('在日历中添加明天的会议')).toEqual([]);
  });

  it('folds accents and full-width forms: "café" finds "cafe", "ＧｉｔＨｕｂ" finds GitHub', () => {
    expect(tokenize('Café')).toEqual(tokenize('cafe'));
    expect(tokenize('ＧｉｔＨｕｂ')).toEqual(tokenize('GitHub'));
    const tools: ToolInfo[] = [
      { toolKey: 'a:order', toolName: 'order_coffee', serverName: 'Cafe', description: 'Order at the cafe.' },
      { toolKey: 'b:other', toolName: 'other', serverName: 'B', description: 'Something else.' },
    ];
    expect(keys('café', tools)).toEqual(['a:order']);
    expect(keys('ＧｉｔＨｕｂのブランチ')[0]).toMatch(/^github:/);
  });
});
