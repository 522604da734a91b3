import type { CognateSpec } from '../latin-language.js';

/**
 * Russian in Latin letters, as an English loanword is spelled back (календар → kalendar, сервер →
 * server, документ → dokument): one letter or two per Cyrillic letter, й as y (плейлист → pleylist,
 * one edit from playlist), the soft and hard signs silent. Not a standard romanization (GOST, BGN):
 * those serve names, this the English words Russian borrowed.
 */
const LETTERS: Readonly<Record<string, string>> = {
  а: 'a',
  б: 'b',
  в: 'v',
  г: 'g',
  д: 'd',
  е: 'e',
  ё: 'e',
  ж: 'zh',
  з: 'z',
  и: 'i',
  й: 'y',
  к: 'k',
  л: 'l',
  м: 'm',
  н: 'n',
  о: 'o',
  п: 'p',
  р: 'r',
  с: 's',
  т: 't',
  у: 'u',
  ф: 'f',
  х: 'h',
  ц: 'ts',
  ч: 'ch',
  ш: 'sh',
  щ: 'shch',
  ъ: '',
  ы: 'y',
  ь: '',
  э: 'e',
  ю: 'yu',
  я: 'ya',
};

/** `word` (lower case) in Latin letters, or '' when it has a letter outside the Russian alphabet. */
export function transliterate(word: string): string {
  let out = '';
  for (const char of word) {
    const latin = LETTERS[char];
    if (latin === undefined) return '';
    out += latin;
  }
  return out;
}

/**
 * How a transliterated stem is read as the English word it was borrowed from (latin-language.ts's
 * cognates): English writes c for a k (dokument: document), s for a z (repozitor: repositor), c for a
 * ts (protsess: process), x for a ks (indeks: index); -tsi (информаци-я) is -tion.
 */
export const RUSSIAN_COGNATES: CognateSpec = {
  endings: [['tsi', 'tion']],
  letters: [
    ['k', 'c'],
    ['z', 's'],
    ['ts', 'c'],
    ['ks', 'x'],
  ],
};
