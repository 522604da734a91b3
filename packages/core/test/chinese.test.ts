import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadLanguages, rankTools, type ToolInfo, type ToolListSearchRequest } from '../src/index.js';
import { loadedLanguageOf } from '../src/languages/registry.js';
import { dictionaryLoaded as japaneseLoaded } from '../src/languages/ja/words.js';
import { chineseWords, dictionaryLoaded } from '../src/languages/zh/words.js';

// The README's sample list (English tools), as the service and the client's fallback rank it.
const sample = JSON.parse(
  readFileSync(new URL('../../../examples/search-request.json', import.meta.url), 'utf8'),
) as ToolListSearchRequest;
const rank = (query: string, tools: ToolInfo[] = sample.tools) => rankTools({ query: [query], tools });
const keys = (query: string, tools?: ToolInfo[]) => rank(query, tools).map((r) => r.tool.toolKey);
const answers = (query: string) => rank(query).map((r) => [r.tool.toolKey, r.score, r.relevance, r.explanation]);

// English requests answered before Chinese is loaded (module state is per test file): loading it must
// change none of them.
const ENGLISH = [
  'add tomorrow’s meeting to my calendar',
  'send an email',
  'rename the files in a folder',
  'read a file',
  'post a message on Slack',
  'create a new branch',
];
const englishBefore = ENGLISH.map(answers);

beforeAll(() => loadLanguages(['ja', 'zh']));

describe('the Chinese dictionary is read only for a Chinese request', () => {
  // First in this file: module state is per test file.
  it('English, Japanese and Korean requests never read it; the first Chinese one does', () => {
    expect(ENGLISH.map(answers)).toEqual(englishBefore);
    rank('カレンダーに明日の会議を追加して');
    rank('会議を追加');
    rank('내일 회의를 캘린더에 추가');
    expect(japaneseLoaded()).toBe(true);
    expect(dictionaryLoaded()).toBe(false);
    rank('在日历中添加明天的会议');
    expect(dictionaryLoaded()).toBe(true);
  });

  it('a Japanese text with kanji stays Japanese (it has kana); Han only is Chinese; Hangul is neither', () => {
    expect(loadedLanguageOf('会議を追加')?.code).toBe('ja');
    expect(loadedLanguageOf('添加会议')?.code).toBe('zh');
    expect(loadedLanguageOf('會議')?.code).toBe('zh');
    expect(loadedLanguageOf('회의 會議')).toBeUndefined();
    expect(loadedLanguageOf('add a meeting')).toBeUndefined();
  });
});

describe('Chinese requests find English tools', () => {
  it('"在日历中添加明天的会议" ranks gcal:create_event first, as its English original does', () => {
    expect(keys('add tomorrow’s meeting to my calendar')[0]).toBe('gcal:create_event');
    expect(keys('在日历中添加明天的会议')[0]).toBe('gcal:create_event');
  });

  it.each([
    ['发送邮件', 'gmail:send_email'],
    ['读取文件', 'filesystem:read_file'],
    ['把文件夹里的文件重命名', 'filesystem:move_file'],
    ['在Slack上发消息', 'slack:post_message'],
    ['新建一个分支', 'github:create_branch'],
    ['列出目录里的文件', 'filesystem:list_directory'],
    ['在谷歌日历上找个空闲时间', 'gcal:find_free_time'],
  ])('%s → %s', (query, expected) => {
    expect(keys(query)[0]).toBe(expected);
  });

  it('traditional characters too: 日曆, 會議, 郵件, 檔案 read as their simplified words', () => {
    expect(keys('在日曆中添加明天的會議')[0]).toBe('gcal:create_event');
    expect(keys('發送郵件')[0]).toBe('gmail:send_email');
    expect(keys('列出目錄裡的檔案')[0]).toBe('filesystem:list_directory');
    expect(rank('在日曆中添加明天的會議')[0]!.explanation).toContain('"meeting" (會議)');
  });

  it('explains which word matched through which translation, naming the words as written', () => {
    const query = '在日历中添加明天的会议';
    const explanation = rank(query)[0]!.explanation;
    expect(explanation).toContain('"meeting" (会议)');
    expect(explanation).toContain('"calendar" (日历)');
    expect(explanation).toMatch(/\(\d of \d query words\)/);
    expect(explanation).not.toContain(query);
  });

  it('segments by the dictionary: 文件夹, 读取, 重命名 stay whole; filler words are no words of the request', () => {
    const words = (text: string) => chineseWords(text).map((word) => word.text);
    expect(words('把文件夹里的文件重命名')).toEqual(['文件夹', '文件', '重命名']);
    expect(words('帮我读取一下这个文件')).toEqual(['读取', '文件']);
    // "一下" is one filler word, not 一 ("one") + 下 ("down").
    expect(words('帮我查一下天气')).toEqual(['查', '天气']);
    expect(chineseWords('读取')[0]!.glosses).toContain('read');
    // The request's coverage counts its words, not its filler: both words matched.
    expect(rank('帮我读取一下这个文件')[0]!.explanation).toContain('(2 of 2 query words)');
  });

  it('a translation is weaker than the word itself: a tool with the English word in its name is not beaten by a synonym', () => {
    const tools: ToolInfo[] = [
      { toolKey: 'a:send_email', toolName: 'send_email', serverName: 'A', description: 'Send an email.' },
      { toolKey: 'b:post', toolName: 'post', serverName: 'B', description: 'Post a notice.' },
    ];
    expect(keys('发送邮件', tools)).toEqual(['a:send_email', 'b:post']);
  });

  it('Chinese tool descriptions still match a Chinese request by its own characters', () => {
    const chinese: ToolInfo[] = [
      { toolKey: 'cal:add', toolName: 'add_event', serverName: '日历', description: '在日历中添加会议和活动。' },
      { toolKey: 'mail:send', toolName: 'send_mail', serverName: '邮件', description: '发送电子邮件给联系人。' },
    ];
    expect(keys('添加明天的会议', chinese)[0]).toBe('cal:add');
    expect(keys('发送邮件', chinese)[0]).toBe('mail:send');
  });
});
