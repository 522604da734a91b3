// The words of a Korean request: each run of Hangul (Korean writes spaces between words) with its
// particles and endings taken off (캘린더에 → 캘린더, 취소해 → 취소, 찾아 → 찾), glossed by the small core
// (core-words.ts); filler words (줘, 좀, 뭐, 어떤) are none. The other words are read against the list's
// own English words at ranking time (`loanwordsIn`).
import type { LanguageWord } from '../language.js';
import { CORE_WORDS } from './core-words.js';
import { englishSkeleton } from '../consonant-skeleton.js';
import { hangulSkeleton } from './romanize.js';

// Particles and verb endings, longest first: taken off the end of a run once each, particle last.
const ENDINGS = [
  '해주세요',
  '해줘요',
  '해줘',
  '해주',
  '하려면',
  '해서',
  '하는',
  '하기',
  '하고',
  '하면',
  '했어',
  '했다',
  '해',
  '한',
  '하',
  '아줘',
  '어줘',
  '아',
  '어',
  '려',
  '은',
  '는',
  '된',
  '될',
];
const PARTICLES = [
  '에서는',
  '에게서',
  '으로는',
  '이라는',
  '에서',
  '에게',
  '한테',
  '으로',
  '이랑',
  '까지',
  '부터',
  '보다',
  '처럼',
  '라는',
  '이나',
  '에는',
  '을',
  '를',
  '이',
  '가',
  '은',
  '는',
  '에',
  '로',
  '의',
  '와',
  '과',
  '도',
  '만',
  '랑',
  '께',
];
// Particles that are also the last syllable of many words (회의, 아이): taken off only a longer word.
const SHORT_PARTICLES = new Set(['이', '가', '의', '도', '만', '은', '는', '로', '와', '과']);

const FILLER = new Set(
  (
    '줘 줘요 주세요 주실래요 좀 뭐 뭔 뭐가 있어 있어요 있나 있나요 있는 어떤 무슨 내 나 저 제 우리 너 이 그 저것 ' +
    '이것 그것 모든 전부 다 하나 그리고 또 및 좀더 그냥 알려 알려줘 해줘 해 하는 라는 이라는 수 것 거 때 ' +
    // Times are a request's arguments, not what a tool does (3시: three o'clock).
    '시 분 초 오전 오후 ' +
    // The copula and its forms after a quoted value ("'Blue'인 옵션").
    '인 이다 입니다 이야 야 줄 줄래 줄래요 있는 있는지 없으면 뭐야'
  ).split(' '),
);

const HANGUL_RUN = /\p{Script=Hangul}+/gu;

/** `run` without its particle and ending ("캘린더에" → 캘린더), as long as a word is left. */
function stem(run: string): string {
  if (CORE_WORDS.has(run)) return run;
  let word = run;
  for (const particle of PARTICLES) {
    const left = word.length - particle.length;
    if (word.endsWith(particle) && left >= (SHORT_PARTICLES.has(particle) ? 2 : 1)) {
      word = word.slice(0, left);
      break;
    }
  }
  if (CORE_WORDS.has(word)) return word;
  for (const ending of ENDINGS) {
    const left = word.length - ending.length;
    if (word.endsWith(ending) && left >= 1) {
      const cut = word.slice(0, left);
      // Keep a loanword's last syllable ("데이터" is no 데이 + 터): cut only to a known word or a Sino-Korean
      // verb noun before 해/하 ("취소해": 취소).
      if (CORE_WORDS.has(cut) || ending.startsWith('해') || ending.startsWith('하')) return cut;
    }
  }
  return word;
}

export function koreanWords(text: string): LanguageWord[] {
  const words: LanguageWord[] = [];
  for (const match of text.matchAll(HANGUL_RUN)) {
    // A particle alone follows a Latin word or a number ("test.json에", "'Blue'인").
    if (FILLER.has(match[0]) || PARTICLES.includes(match[0])) continue;
    const word = stem(match[0]);
    if (FILLER.has(word)) continue;
    const start = match.index;
    words.push({ text: word, start, end: start + word.length, glosses: [...(CORE_WORDS.get(word) ?? [])] });
  }
  return words;
}

// Skeletons shorter than this match too many English words (파일: file, pull, pool; 페이지: page,
// path, base): the core glosses those.
const MIN_SKELETON = 3;
// An English word longer than this many letters a syllable is no transcription of the Hangul word.
const LETTERS_PER_SYLLABLE = 3;
const MAX_LOANWORDS = 2;

/** The list's words (stems) `word` is a Hangul loanword of, by consonant skeleton (romanize.ts). */
export function loanwordsIn(word: string, listTerms: Iterable<string>): string[] {
  const skeleton = hangulSkeleton(word);
  if (skeleton.length < MIN_SKELETON) return [];
  const maxLength = [...word].length * LETTERS_PER_SYLLABLE + 1;
  const found: string[] = [];
  for (const term of listTerms) {
    if (term.length < 4 || term.length > maxLength || !/^[a-z]+$/.test(term)) continue;
    if (sameSkeleton(term, skeleton)) found.push(term);
    if (found.length === MAX_LOANWORDS) break;
  }
  return found;
}

/**
 * Whether the list's word `term` (a stem) has the consonants `skeleton`: as written, or as the word it
 * was before Porter2 took its -e or -ing off ("messag": message, "meet": meeting), "th" as one sound
 * (스레드: thread) or two (깃허브: git-hub). The variants are tried only where they can differ.
 */
function sameSkeleton(term: string, skeleton: string): boolean {
  const base = englishSkeleton(term);
  if (base === skeleton || (base.at(-1) !== 'N' && `${base}N` === skeleton)) return true;
  const forms: string[] = [];
  if (/[gcr]$/.test(term)) forms.push(`${term}e`, `${term}ing`);
  if (term.includes('th')) forms.push(...[term, ...forms].map((form) => form.replaceAll('th', 't.h')));
  return forms.some((form) => englishSkeleton(form) === skeleton);
}
