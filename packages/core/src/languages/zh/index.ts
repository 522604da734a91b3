import type { Language } from '../language.js';
import { isFiller } from './filler.js';
import { chineseWords } from './words.js';

/** Chinese, simplified and traditional (loaded by the registry on first need, with its dictionary). */
export const language: Language = {
  code: 'zh',
  // Longest match against the CC-CEDICT headwords (words.ts); filler words are not in the dictionary.
  words: chineseWords,
  // Pronouns, particles, politeness and question words outside every dictionary word ("帮我", "一下").
  carriesNoMeaning: isFiller,
};
