import type { LanguageWord } from '../language.js';
import { CYRILLIC_WORD } from '../scripts.js';
import { CORE_WORDS } from './core-words.js';
import { RUSSIAN_FILLER } from './filler.js';
import { foldRussian, russianStem } from './stem.js';

/**
 * The words of a Russian request: each run of Cyrillic letters that is no filler word (filler.ts), as
 * written (so that its terms are the request's own), glossed by the core when its stem is one
 * (календаре: no; встречу: meeting). The others are read against the list's own English words at
 * ranking time (index.ts's cognatesIn). Latin words (GitHub, PDF) are the request's own, as in English.
 */
export function russianWords(text: string): LanguageWord[] {
  const words: LanguageWord[] = [];
  for (const match of text.matchAll(CYRILLIC_WORD)) {
    const folded = foldRussian(match[0]);
    if (RUSSIAN_FILLER.has(folded)) continue;
    const glosses = CORE_WORDS.get(russianStem(folded)) ?? CORE_WORDS.get(folded) ?? [];
    words.push({ text: match[0], start: match.index, end: match.index + match[0].length, glosses: [...glosses] });
  }
  return words;
}
