import type { Language } from '../language.js';
import { HIRAGANA_ONLY } from '../scripts.js';
import { japaneseWords } from './words.js';

/** Japanese (loaded by the registry on first need, with its dictionary). */
export const language: Language = {
  code: 'ja',
  // Longest match against the JMdict/EDICT headwords, verbs and adjectives brought back to their
  // dictionary form (words.ts).
  words: (text) => japaneseWords(text) ?? [],
  // Hiragana outside every dictionary word: particles and endings ("して", "を追" is across a boundary).
  carriesNoMeaning: (piece) => HIRAGANA_ONLY.test(piece),
};
