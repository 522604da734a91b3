import { cognates } from '../latin-language.js';
import type { Language } from '../language.js';
import { RUSSIAN_FILLER } from './filler.js';
import { foldRussian, russianStem } from './stem.js';
import { RUSSIAN_COGNATES, transliterate } from './transliterate.js';
import { russianWords } from './words.js';

/**
 * Russian (loaded by the registry on first need): filler words dropped, endings taken off, a small core
 * of words glossed by hand, and loanwords read as the list's own English words through a transliteration
 * and the Latin-script languages' cognate matching (календарь → kalendar → calendar). No dictionary:
 * none under an open, non-copyleft licence was found in npm or Debian.
 */
export const language: Language = {
  code: 'ru',
  words: russianWords,
  carriesNoMeaning: (piece) => RUSSIAN_FILLER.has(foldRussian(piece)),
  cognatesIn: (word, listTerms, stem) => {
    const latin = transliterate(russianStem(foldRussian(word)));
    return latin === '' ? [] : cognates(latin, listTerms, stem, RUSSIAN_COGNATES);
  },
};
