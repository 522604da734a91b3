/**
 * Hangul loanwords against the list's English words, by consonants: Korean writes an English loanword
 * by its sounds (캘린더 calendar, 깃허브 github, 테이블 table), and its consonants survive the
 * transcription better than its vowels do. Both sides are reduced to a skeleton of consonant classes
 * (p/b/f/v are one class, as Korean has one letter for them; t/d; k/g/c; s/z/j/ch/sh; l/r; an r that
 * no vowel follows is silent, as Korean drops it: 폴더 folder), doubled classes merged.
 */

// Per initial consonant of a syllable (Unicode order ㄱ ㄲ ㄴ ㄷ ㄸ ㄹ ㅁ ㅂ ㅃ ㅅ ㅆ ㅇ ㅈ ㅉ ㅊ ㅋ ㅌ ㅍ ㅎ): its class.
const INITIAL = ['K', 'K', 'N', 'T', 'T', 'L', 'M', 'P', 'P', 'S', 'S', '', 'S', 'S', 'S', 'K', 'T', 'P', 'H'];
// Per final consonant (none, ㄱ ㄲ ㄳ ㄴ ㄵ ㄶ ㄷ ㄹ ㄺ ㄻ ㄼ ㄽ ㄾ ㄿ ㅀ ㅁ ㅂ ㅄ ㅅ ㅆ ㅇ ㅈ ㅊ ㅋ ㅌ ㅍ ㅎ): its
// class. A final ㅅ is a loanword's t (깃허브: git), a final ㅇ its ng (링크: link).
const FINAL = [
  '',
  'K',
  'K',
  'K',
  'N',
  'N',
  'N',
  'T',
  'L',
  'K',
  'M',
  'P',
  'L',
  'T',
  'P',
  'L',
  'M',
  'P',
  'P',
  'T',
  'T',
  'N',
  'T',
  'T',
  'K',
  'T',
  'P',
  '',
];

const merged = (classes: string): string => classes.replace(/(.)\1+/g, '$1');

/** The consonant skeleton of a Hangul word ("캘린더" → KLNT), or '' for a word with other letters. */
export function hangulSkeleton(word: string): string {
  let out = '';
  for (const char of word) {
    const code = char.charCodeAt(0) - 0xac00;
    if (code < 0 || code >= 11172) return '';
    out += INITIAL[Math.floor(code / 588)]! + FINAL[code % 28]!;
  }
  return merged(out);
}

// The class of each English letter that has one (vowels, w and y have none).
const LETTER_CLASS: Record<string, string> = {
  b: 'P',
  p: 'P',
  f: 'P',
  v: 'P',
  t: 'T',
  d: 'T',
  k: 'K',
  g: 'K',
  c: 'K',
  q: 'K',
  s: 'S',
  z: 'S',
  j: 'S',
  l: 'L',
  r: 'L',
  m: 'M',
  n: 'N',
  h: 'H',
  x: 'KS',
};
const isVowel = (char: string | undefined): boolean => char !== undefined && 'aeiouy'.includes(char);

/**
 * The consonant skeleton of an English word ("calendar" → KLNT, "github" → KTHP). A loop over the
 * letters, not a list of patterns: it runs for every word of a list a Korean word is compared with.
 */
export function englishSkeleton(word: string): string {
  let out = '';
  for (let i = 0; i < word.length;) {
    const [classes, letters] = spelling(word, i);
    for (const one of classes) if (out.at(-1) !== one) out += one;
    i += letters;
  }
  return out;
}

/** The classes of the spelling at `i` of `word` and how many letters it takes. */
function spelling(word: string, i: number): [string, number] {
  const char = word[i]!;
  const next = word[i + 1];
  if ((char === 't' || char === 's') && word.startsWith('ion', i + 1)) return ['SN', 4];
  if (char === 'p' && next === 'h') return ['P', 2];
  if ((char === 's' || char === 'c' || char === 't') && next === 'h') return ['S', 2];
  if (char === 'c' && next === 'k') return ['K', 2];
  if (char === 'n' && next === 'g' && i + 2 === word.length) return ['N', 2];
  if (char === 'q' && next === 'u') return ['K', 2];
  // A soft g or c ("message", "image", "service"); "git" keeps its hard g (github).
  const rest = word.slice(i + 2);
  if (char === 'g' && ((next === 'e' && (rest === '' || rest === 's')) || (next === 'i' && rest[0] !== 't')))
    return ['S', 1];
  if (char === 'c' && (next === 'e' || next === 'i' || next === 'y')) return ['S', 1];
  // An r no vowel follows is silent, as Korean drops it (폴더: folder).
  if (char === 'r' && !isVowel(next)) return ['', 1];
  return [LETTER_CLASS[char] ?? '', 1];
}
