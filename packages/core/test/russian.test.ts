import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadLanguages, rankTools, type ToolListSearchRequest } from '../src/index.js';
import { russianWords } from '../src/languages/ru/words.js';
import { foldRussian, russianStem } from '../src/languages/ru/stem.js';
import { transliterate } from '../src/languages/ru/transliterate.js';

const sample = JSON.parse(
  readFileSync(new URL('../../../examples/search-request.json', import.meta.url), 'utf8'),
) as ToolListSearchRequest;
const first = (query: string) => rankTools({ query: [query], tools: sample.tools })[0];

describe('Russian words', () => {
  it('filler words are none; every other Cyrillic word is one, as written', () => {
    expect(russianWords('Что у меня в календаре на завтра?').map((word) => word.text)).toEqual(['календаре', 'завтра']);
    expect(russianWords('Создай issue на GitHub').map((word) => word.text)).toEqual(['Создай']);
  });

  it.each([
    ['календаре', 'календар'],
    ['календарь', 'календар'],
    ['встречу', 'встреч'],
    ['отмените', 'отмен'],
    ['таблицы', 'таблиц'],
    ['репозитории', 'репозитор'],
    ['счёт', 'счет'],
    ['формат', 'формат'],
  ])('%s has the stem %s', (word, stem) => {
    expect(russianStem(foldRussian(word))).toBe(stem);
  });

  it('transliterates as English loanwords are spelled back', () => {
    expect(['календар', 'сервер', 'документ', 'файл', 'плейлист'].map(transliterate)).toEqual([
      'kalendar',
      'server',
      'dokument',
      'fayl',
      'pleylist',
    ]);
  });
});

describe('loaded', () => {
  beforeAll(() => loadLanguages(['ru']));

  it("loanwords match the list's own English words through their transliteration", () => {
    const calendar = first('Что у меня в календаре на завтра?')!;
    expect(calendar.tool.toolKey.startsWith('gcal:')).toBe(true);
    expect(calendar.explanation).toContain('"calendar" (календаре)');
    const tools = [
      ...sample.tools,
      {
        toolKey: 'ops:restart_server',
        toolName: 'restart_server',
        serverName: 'Ops',
        description: 'Restart a server.',
      },
    ];
    const [server] = rankTools({ query: ['Перезапусти сервер'], tools });
    expect(server!.tool.toolKey).toBe('ops:restart_server');
    expect(server!.explanation).toContain('"server" (сервер)');
  });

  it('the core words read what is no loanword, and filler words never count', () => {
    const cancel = first('Отмени мою встречу в 15:00')!;
    expect(cancel.tool.toolKey).toBe('gcal:delete_event');
    // "мою", "в" are no words of the request: 2 of 2.
    expect(cancel.explanation).toContain('(2 of 2 query words)');
    expect(first('Создай новую папку invoices')!.tool.toolKey).toBe('filesystem:create_directory');
    expect(first('Какие таблицы есть в базе данных?')!.tool.toolKey).toBe('postgres:list_tables');
    // A request of filler words only matches nothing.
    expect(rankTools({ query: ['что у меня на это'], tools: sample.tools })).toEqual([]);
  });

  it('an English request quoting a Russian word stays English; Ukrainian is not read as Russian', () => {
    const english = 'send an email to the team saying "привет"';
    expect(first(english)!.explanation).not.toContain('привет');
    expect(first(english)!.tool.toolKey).toBe('gmail:send_email');
    expect(rankTools({ query: ['Створіть нову папку'], tools: sample.tools })).toEqual([]);
  });
});
