// Hangul loanwords against the list's English words, by consonants: Korean writes an English loanword
// by its sounds (캘린더 calendar, 깃허브 github, 테이블 table), and its consonants survive the
// transcription better than its vowels do. Both sides are reduced to a skeleton of consonant classes
// (../consonant-skeleton.ts; p/b/f/v are one class, as Korean has one letter for them), doubled classes
// merged.

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
