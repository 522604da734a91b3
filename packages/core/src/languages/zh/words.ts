// The words of a Chinese request and their English glosses, from the CC-CEDICT-derived dictionary
// (zh-en-dictionary.ts, built by scripts/build-dictionary-zh.ts; loaded with this folder on first need,
// languages/registry.ts): what lets a Chinese request find tools described in English.
//
// Segmentation is a longest match against the dictionary's headwords, simplified and traditional alike
// (a traditional request is read through the character map, 資料夾 as 资料夹). `Intl.Segmenter` alone
// was measured and not kept: ICU splits 文件夹, 读取 and 重命名, which are the words a tool request
// hinges on (docs/ranking.md).
import { Headwords } from '../headwords.js';
import type { LanguageWord } from '../language.js';
import { HAN_LETTER } from '../scripts.js';
import { fillerEnd } from './filler.js';
import { ZH_EN_ENTRIES, ZH_TRADITIONAL } from './zh-en-dictionary.js';

// Longest headword tried, in UTF-16 units (the script keeps headwords of at most four characters).
const MAX_WORD = 8;

let headwords: Headwords | undefined;
let toSimplified: Map<string, string> | undefined;

/** The dictionary, split on the first Chinese request (a few milliseconds). */
function dictionary(): Headwords {
  if (headwords !== undefined) return headwords;
  const map = new Map<string, string>();
  const pairs = [...ZH_TRADITIONAL];
  for (let k = 0; k + 1 < pairs.length; k += 2) map.set(pairs[k]!, pairs[k + 1]!);
  toSimplified = map;
  return (headwords = new Headwords(ZH_EN_ENTRIES));
}

/** Whether the dictionary has been split (for tests: an English or Japanese request never reads it). */
export function dictionaryLoaded(): boolean {
  return headwords !== undefined;
}

/** `text` with its traditional characters read as simplified (same length: offsets stay valid). */
function simplified(text: string): string {
  let out = '';
  for (const char of text) {
    const simple = toSimplified!.get(char);
    out += simple !== undefined && simple.length === char.length ? simple : char;
  }
  return out;
}

/** The dictionary words of `text`, in order (a Han-only request: the registry sends no other here). */
export function chineseWords(text: string): LanguageWord[] {
  const dict = dictionary();
  const read = simplified(text);
  const words: LanguageWord[] = [];
  let i = 0;
  while (i < text.length) {
    if (!HAN_LETTER.test(text[i]!)) {
      i += 1;
      continue;
    }
    // As written first (a traditional headword the map does not simplify has a line of its own), then as read.
    const found = [dict.longestAt(text, i, MAX_WORD), read === text ? undefined : dict.longestAt(read, i, MAX_WORD)]
      .filter((match) => match !== undefined)
      .sort((a, b) => b.end - a.end)[0];
    // A filler word ("一下", "帮我") is segmented as a word but is none of the request's: "查一下天气" is
    // 查 + 一下 + 天气, not 查 + 一 + 下 + 天气.
    const filler = Math.max(fillerEnd(text, i), fillerEnd(read, i));
    if (found === undefined || filler >= found.end) {
      i = Math.max(filler, i + 1);
      continue;
    }
    words.push({ text: text.slice(i, found.end), start: i, end: found.end, glosses: found.glosses.split('|') });
    i = found.end;
  }
  return words;
}
