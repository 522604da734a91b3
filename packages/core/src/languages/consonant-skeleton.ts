// Consonant skeletons: how a loanword written by its sounds is compared with the English word it was
// borrowed from, in Hangul (캘린더: calendar, ko/romanize.ts) or katakana (メール: mail, the Japanese
// dictionary's script). Consonants survive such a transcription better than vowels do, so each side
// becomes a string of consonant classes: p/b/f/v one class (Korean has one letter for them), t/d,
// k/g/c, s/z/j/ch/sh, l/r, m, n, h; an r no vowel follows is silent (both drop it: 폴더, フォルダー
// folder), doubled classes merged.

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

// Per katakana (the full-size ones; vowels, small kana, ッ and ー add none): its consonant class.
const KATAKANA_CLASS: Readonly<Record<string, string>> = Object.fromEntries(
  'K:カキクケコガギグゲゴ S:サシスセソザジズゼゾチヂ T:タテトダデドツヅ N:ナニヌネノン H:ハヒヘホ P:フパピプペポバビブベボヴ M:マミムメモ L:ラリルレロ'
    .split(' ')
    .flatMap((row) => [...row.slice(2)].map((kana) => [kana, row[0]!])),
);

/** The consonant skeleton of a katakana word ("メール" → ML, "フォルダー" → PLT). */
export function katakanaSkeleton(word: string): string {
  let out = '';
  // A final ング is English's -ng (ウェイティング: waiting), a lone N as englishSkeleton has it.
  for (const kana of word.replace(/ング$/u, 'ン')) {
    const one = KATAKANA_CLASS[kana];
    if (one !== undefined && out.at(-1) !== one) out += one;
  }
  return out;
}
