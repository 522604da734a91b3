// The words of a Japanese request and their English glosses, from the JMdict/EDICT-derived dictionary
// (ja-en-dictionary.ts, built by scripts/build-dictionary.ts; loaded with this folder on first need,
// languages/registry.ts): what lets a Japanese request find tools
// described in English.
//
// Segmentation is a longest match against the dictionary's headwords, with verbs and adjectives
// brought back to their dictionary form ("送っ" → 送る, "新しく" → 新しい). `Intl.Segmenter` was
// measured and not kept: ICU cuts katakana loanwords it does not know ("リ|ポジ|トリ") and verb stems
// ("送|って"), which are the words a tool request hinges on (docs/ranking.md).
import type { LanguageWord } from '../language.js';
import { HAN_LETTER as HAN, JAPANESE_CHAR, KANA, KANA_ONLY, KATAKANA_CHAR as KATAKANA } from '../scripts.js';
import { Headwords } from '../headwords.js';
import { JA_EN_ENTRIES } from './ja-en-dictionary.js';

// A request only takes this path with kana in it (KANA): Chinese has none.
// Longest headword tried, in characters (longer compounds are rare and cost a lookup each).
const MAX_WORD = 10;

let headwords: Headwords | undefined;

/**
 * The dictionary, split into its sorted lines on the first Japanese request (a few milliseconds; no map
 * of entries is built: a lookup is a binary search within its first character's lines, headwords.ts).
 */
function dictionary(): Headwords {
  return (headwords ??= new Headwords(JA_EN_ENTRIES));
}

/** Whether the dictionary's lines have been split (for tests: an English request never reads it). */
export function dictionaryLoaded(): boolean {
  return headwords !== undefined;
}

// The last kana of an inflected stem → the dictionary forms' endings it can come from:
// godan verbs' -a/-i/-e stems and te-forms (書い → 書く, 送っ → 送る, 読ん → 読む), adjectives' -ku.
const STEM_ENDINGS: Record<string, readonly string[]> = {
  っ: ['る', 'う', 'つ'],
  ん: ['む', 'ぶ', 'ぬ'],
  い: ['く', 'ぐ', 'う'],
  き: ['く'],
  ぎ: ['ぐ'],
  し: ['す'],
  ち: ['つ'],
  に: ['ぬ'],
  び: ['ぶ'],
  み: ['む'],
  り: ['る'],
  か: ['く'],
  が: ['ぐ'],
  さ: ['す'],
  た: ['つ'],
  な: ['ぬ'],
  ば: ['ぶ'],
  ま: ['む'],
  ら: ['る'],
  わ: ['う'],
  け: ['く'],
  げ: ['ぐ'],
  せ: ['す'],
  ね: ['ぬ'],
  べ: ['ぶ'],
  め: ['む'],
  れ: ['る'],
  え: ['う'],
  く: ['い'],
};

/** The glosses of the dictionary word `form` is an inflected stem of, or undefined. */
function inflected(form: string, dict: Headwords): string | undefined {
  // Only words written with kanji inflect here: a kana fragment would match too much.
  if (form.length < 2 || !HAN.test(form[0]!)) return undefined;
  const last = form.at(-1)!;
  const stem = form.slice(0, -1);
  for (const ending of STEM_ENDINGS[last] ?? []) {
    const glosses = dict.get(stem + ending);
    if (glosses !== undefined) return glosses;
  }
  // Ichidan verbs: the stem is the word without る (教え → 教える).
  return dict.get(`${form}る`);
}

/** The dictionary words of `text`, in order; undefined for a text without kana (not Japanese). */
export function japaneseWords(text: string): LanguageWord[] | undefined {
  if (!KANA.test(text)) return undefined;
  const dict = dictionary();
  const words: LanguageWord[] = [];
  let i = 0;
  let lastEnd = 0;
  while (i < text.length) {
    // A match starts where a word may start: not inside a katakana word the dictionary does not know
    // ("イシュー" is no "イ" + "シュー").
    const insideKatakana = i > lastEnd && KATAKANA.test(text[i - 1]!) && KATAKANA.test(text[i]!);
    if (insideKatakana || !JAPANESE_CHAR.test(text[i]!)) {
      i += 1;
      continue;
    }
    let runEnd = i;
    while (runEnd < text.length && runEnd - i < MAX_WORD && JAPANESE_CHAR.test(text[runEnd]!)) runEnd += 1;
    // Longest match: the headwords starting with the text from i narrow as the form grows (headwords.ts).
    const best = dict.longestAt(text, i, runEnd - i, (form, exact) =>
      // A lone kana is a particle or an ending, never a word worth translating.
      form.length === 1 && KANA_ONLY.test(form) ? undefined : (exact ?? inflected(form, dict)),
    );
    if (best === undefined) {
      i += 1;
      continue;
    }
    words.push({ text: text.slice(i, best.end), start: i, end: best.end, glosses: best.glosses.split('|') });
    i = lastEnd = best.end;
  }
  return words;
}
