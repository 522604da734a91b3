import { foldRussian, russianStem } from './stem.js';

/**
 * The small core of Russian words glossed by hand (the catalog-search team, Apache-2.0): the words of tool
 * requests that are no English loanwords, so no transliteration finds them (встреча meeting, отменить
 * cancel, папка folder, письмо email), and loanwords too short to tell apart by spelling (файл file, веб
 * web). Everything else a request matches, it matches as a loanword of the list's own words
 * (transliterate.ts) or as written (GitHub). No Russian–English dictionary under an open, non-copyleft
 * licence was found in npm or Debian. Written as dictionary forms (and the imperative where its stem
 * differs), keyed by their stems (stem.ts), so that every case and form of a word finds its line.
 */
const ENTRIES =
  // Calendar and mail.
  'встреча совещание созвон meeting|event;событие мероприятие event;расписание schedule;' +
  'напоминание reminder;письмо email|mail;почта mail|email;входящие inbox;сообщение message;' +
  'сегодня today;завтра tomorrow;вчера yesterday;время time;свободный free;' +
  // What a request asks a tool to do.
  'отменить отмени cancel;удалить удали delete|remove;создать создай create;добавить добавь add;новый new;' +
  'отправить отправь послать пошли send;написать напиши message|write;найти найди искать ищи find|search;' +
  'поиск search;показать покажи show|list;список перечислить list;прочитать прочитай прочти читать read;' +
  'записать запиши write;сохранить сохрани save;изменить измени change|edit;обновить обнови update;' +
  'редактировать edit;переименовать переименуй rename;переместить перемести move;скопировать скопируй copy;' +
  'открыть открой open;закрыть закрой close;загрузить загрузи upload;скачать скачай download;' +
  'получить получи get;запустить запусти run|start;выполнить выполни run|execute;проверить проверь check;' +
  'слить merge;ответить ответь reply;перевести переведи translate;назначить назначь запланировать ' +
  'запланируй schedule;' +
  // What tools work on.
  'файл file;папка каталог folder|directory;подпапка subfolder|folder;канал channel;команда team;' +
  'пользователь user;участник member;ветка branch;задача task|issue;ошибка error|bug;комментарий comment;' +
  'запрос request|query;таблица table;база database|base;данные data;страница page;ссылка link;сайт site|web;' +
  'веб web;интернет web;погода weather;новости news;цена price;акция stock;счет invoice|bill;' +
  'содержимое content;название имя name;размер size;путь path;строка line;код code;репо repository';

/** Per stem (stem.ts) of a core word: its English glosses, most common sense first. */
export const CORE_WORDS: ReadonlyMap<string, readonly string[]> = new Map(
  ENTRIES.split(';').flatMap((entry) => {
    const words = entry.split(' ');
    const glosses = words.pop()!.split('|');
    return words.map((word) => [russianStem(foldRussian(word)), glosses] as const);
  }),
);
