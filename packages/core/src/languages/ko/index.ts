import type { Language } from '../language.js';
import { koreanWords, loanwordsIn } from './words.js';

const HANGUL_ONLY = /^\p{Script=Hangul}+$/u;

/**
 * Korean (loaded by the registry on first need): particles and endings taken off, a small core of words
 * glossed by hand, and Hangul loanwords read as the list's own English words by their consonants
 * (words.ts, romanize.ts). No dictionary: none under an open, non-copyleft licence was found.
 */
export const language: Language = {
  code: 'ko',
  words: koreanWords,
  // Hangul outside every word: particles, endings and filler ("에", "줘").
  carriesNoMeaning: (piece) => HANGUL_ONLY.test(piece),
  cognatesIn: (word, listTerms) => loanwordsIn(word, listTerms),
};
