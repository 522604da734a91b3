// The writing systems core tells apart, defined once: the tokenizer (CJK bigrams), the registry's
// detection, the languages' segmentation and the dictionary scripts all build on these.

/** Character-class bodies (what goes inside `[...]`), for patterns built from them. */
export const HAN = '\\p{Script=Han}';
export const HIRAGANA = '\\p{Script=Hiragana}';
export const KATAKANA = '\\p{Script=Katakana}';
const HANGUL = '\\p{Script=Hangul}';
/** The prolonged sound mark (Unicode's Common script): part of katakana words ("メール"). */
export const LONG_VOWEL = 'ー';
/** The kanji iteration mark ("々": 人々). */
export const ITERATION = '々';

const CJK_SCRIPTS = `${HAN}${HIRAGANA}${KATAKANA}${HANGUL}`;

/** A letter of Chinese, Japanese or Korean. */
export const CJK_LETTER = new RegExp(`[${CJK_SCRIPTS}]`, 'u');
/** A CJK letter or the prolonged sound mark: what the tokenizer's CJK runs are made of. */
export const CJK_CHAR = new RegExp(`[${CJK_SCRIPTS}${LONG_VOWEL}]`, 'u');
/** A text split into runs: group 1 a CJK run, group 2 a run of anything else. */
export const CJK_RUNS = new RegExp(`([${CJK_SCRIPTS}${LONG_VOWEL}]+)|([^${CJK_SCRIPTS}${LONG_VOWEL}]+)`, 'gu');

/** A character outside ASCII (a UTF-16 unit above 0x7f): a text without one is in none of these scripts. */
export const NOT_ASCII = /[\u0080-\uffff]/;

/** Hiragana or katakana: a text with one is Japanese (Chinese has none). */
export const KANA = new RegExp(`[${HIRAGANA}${KATAKANA}]`, 'u');
export const HAN_LETTER = new RegExp(HAN, 'u');
/** A Hangul letter: a text with one is Korean, even with hanja in it. */
export const HANGUL_LETTER = new RegExp(HANGUL, 'u');
export const CYRILLIC_LETTER = /\p{Script=Cyrillic}/u;
/** A word of Cyrillic letters (Russian), and one of Latin letters: the Russian registry line counts both. */
export const CYRILLIC_WORD = /\p{Script=Cyrillic}+/gu;
export const LATIN_WORD = /\p{Script=Latin}+/gu;
export const KATAKANA_CHAR = new RegExp(`[${KATAKANA}${LONG_VOWEL}]`, 'u');
/** A character of a Japanese word: kanji, kana, the prolonged sound mark, the iteration mark. */
export const JAPANESE_CHAR = new RegExp(`[${HAN}${HIRAGANA}${KATAKANA}${LONG_VOWEL}${ITERATION}]`, 'u');
export const HIRAGANA_ONLY = new RegExp(`^[${HIRAGANA}${LONG_VOWEL}]+$`, 'u');
export const KANA_ONLY = new RegExp(`^[${HIRAGANA}${KATAKANA}${LONG_VOWEL}]+$`, 'u');
