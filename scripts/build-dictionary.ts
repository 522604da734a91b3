// Derives core's compact Japanese → English dictionary (packages/core/src/languages/ja/ja-en-dictionary.ts) from
// JMdict/EDICT as Debian's `edict` package installs it (EUC-JP text, one entry a line:
// `漢字 [かな] /(pos) gloss/gloss/(P)/`). Reproducible: the same edict file gives the same output.
//
//   npm run build:dictionary                       # reads /usr/share/edict/edict
//   npm run build:dictionary -- --edict FILE       # another copy of the EDICT file
//   npm run build:dictionary -- zh [--cedict FILE]  # Chinese, from CC-CEDICT (scripts/build-dictionary-zh.ts)
//
// Pruned to what tool search needs: the headwords written with kanji or katakana (hiragana-only ones
// only from three characters, so that particles never become words), from the common entries (EDICT's
// `(P)`) and every katakana loanword whose first sense is one or two English words; per headword, the
// English glosses of its first senses that are at most two words ("to send (a thing)" → "send"): the
// one-word ones when there are any, at most MAX_GLOSSES; a katakana loanword's later senses only where
// they sound like it (メール: "email", then "mail", not "post"). Licence: EDRDG's, CC BY-SA (see ja-en-dictionary.LICENSE.md).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildChineseDictionary } from './build-dictionary-zh.js';
import { englishSkeleton, katakanaSkeleton } from '../packages/core/src/languages/consonant-skeleton.js';
import { HAN, HIRAGANA, ITERATION, KATAKANA, LONG_VOWEL } from '../packages/core/src/languages/scripts.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { edict: { type: 'string', default: '/usr/share/edict/edict' }, cedict: { type: 'string' } },
});
if (positionals[0] === 'zh') {
  buildChineseDictionary(values.cedict);
  process.exit(0);
}
const OUT = fileURLToPath(new URL('../packages/core/src/languages/ja/ja-en-dictionary.ts', import.meta.url));

const MAX_GLOSSES = 8;
const MAX_GLOSS_WORDS = 2;
// Senses read per entry: the first ones are the common meanings; later ones are rarer uses.
const MAX_SENSES = 2;
// EDICT writes a few loanwords with the middle dot: "ウェブ・サイト".
const KATAKANA_ONLY = new RegExp(`^[${KATAKANA}${LONG_VOWEL}・]+$`, 'u');
const HIRAGANA_ONLY = new RegExp(`^[${HIRAGANA}${LONG_VOWEL}]+$`, 'u');
const JAPANESE = new RegExp(`^[${HAN}${HIRAGANA}${KATAKANA}${LONG_VOWEL}${ITERATION}]+$`, 'u');

/**
 * The English glosses of an entry's first senses, cleaned: lower case, no parentheses, no "to ". A
 * katakana loanword that has the English word it sounds like among them (its consonants, core's
 * consonant-skeleton.ts) keeps of its later senses only the glosses that sound like it: メール is
 * "(1) email (2) mail; post", and "post" put Slack's post_message beside Gmail's tools for
 * "ボブにメールを送って"; パス keeps "pass", not "ticket". One that has none (アップ: "increasing",
 * "uploading") keeps them all.
 */
function glossesOf(body: string, headword: string): string[] {
  const glosses: { text: string; sense: number }[] = [];
  let sense = 0;
  for (const raw of body.split('/')) {
    let text = raw.trim();
    if (text === '' || text === '(P)' || text.startsWith('EntL')) continue;
    // "(n,vs) (1) meeting": a numbered sense tag starts a new sense.
    const numbered = /^(?:\([^)]*\)\s*)*\((\d+)\)/.exec(text);
    if (numbered) sense = Number(numbered[1]);
    else if (sense === 0) sense = 1;
    if (sense > MAX_SENSES) break;
    text = text
      .replace(/\([^)]*\)|\{[^}]*\}/g, ' ')
      .replace(/^\s*to\s+/i, '')
      .replace(/\s+/g, ' ')
      .trim()
      .toLowerCase();
    if (text === '' || !/^[a-z][a-z' -]*$/.test(text)) continue;
    if (text.split(/[ -]/).length > MAX_GLOSS_WORDS) continue;
    glosses.push({ text, sense });
  }
  const sound = KATAKANA_ONLY.test(headword) ? katakanaSkeleton(headword) : '';
  const soundsLike = (gloss: string) => sound !== '' && englishSkeleton(gloss) === sound;
  const loanword = glosses.some((gloss) => soundsLike(gloss.text));
  return glosses.filter((gloss) => !loanword || gloss.sense === 1 || soundsLike(gloss.text)).map((gloss) => gloss.text);
}

const text = new TextDecoder('euc-jp').decode(readFileSync(values.edict));
const byHeadword = new Map<string, string[]>();
for (const line of text.split('\n').slice(1)) {
  const match = /^(\S+)(?: \[([^\]]+)\])? \/(.*)$/.exec(line);
  if (!match) continue;
  const [, headword, reading, body] = match as unknown as [string, string, string | undefined, string];
  const common = body.includes('/(P)/');
  const glosses = glossesOf(body, headword);
  if (glosses.length === 0) continue;
  // A rarer loanword keeps its first gloss only, if one word ("ブランチ" → "branch"): names and phrases go.
  const loanword = !common && KATAKANA_ONLY.test(headword) && headword.length <= 7 && /^[a-z']+$/.test(glosses[0]!);
  if (!common && !loanword) continue;
  if (loanword) glosses.length = 1;
  const forms = [headword];
  // A common word's kana reading is also how people write it ("まとめる" for 纏める).
  if (common && reading !== undefined && reading.length >= 3) forms.push(reading);
  for (const form of forms) {
    if (!JAPANESE.test(form)) continue;
    if (HIRAGANA_ONLY.test(form) && form.length < 3) continue;
    const list = byHeadword.get(form) ?? [];
    for (const gloss of glosses) if (!list.includes(gloss)) list.push(gloss);
    byHeadword.set(form, list);
  }
}

// Every English word EDICT uses as a one-word gloss: the verbs a noun gloss is checked against below.
const englishWords = new Set<string>();
for (const glosses of byHeadword.values())
  for (const gloss of glosses) if (!gloss.includes(' ')) englishWords.add(gloss);

/**
 * The verb a noun gloss names, when EDICT knows that verb ("addition" → "add", "creation" → "create",
 * "deletion" → "delete"): Japanese action nouns (追加, 作成, 削除) are glossed as nouns, and tools are
 * named with verbs, which the stemmer does not bring together.
 */
function verbOf(gloss: string): string | undefined {
  const candidates = [
    gloss.replace(/ition$/, ''),
    gloss.replace(/ation$/, 'e'),
    gloss.replace(/ation$/, ''),
    gloss.replace(/ion$/, 'e'),
    gloss.replace(/ion$/, ''),
    gloss.replace(/ment$/, ''),
  ];
  return candidates.find((verb) => verb !== gloss && verb.length >= 3 && englishWords.has(verb));
}

const lines: string[] = [];
for (const [headword, glosses] of [...byHeadword].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) {
  // One-word glosses first (they are the index terms), then two-word ones; order kept within each.
  const single = glosses.filter((g) => !/[ -]/.test(g));
  const ordered = (single.length > 0 ? single : glosses).slice(0, MAX_GLOSSES);
  for (const gloss of [...ordered]) {
    const verb = verbOf(gloss);
    if (verb !== undefined && !ordered.includes(verb)) ordered.splice(ordered.indexOf(gloss) + 1, 0, verb);
  }
  lines.push(`${headword}\t${ordered.join('|')}`);
}
const data = lines.join('\n');
const source = `// Generated by \`npm run build:dictionary\` (scripts/build-dictionary.ts) from JMdict/EDICT: do not edit.
// Copyright the Electronic Dictionary Research and Development Group, CC BY-SA (ja-en-dictionary.LICENSE.md).
// One entry a line: a Japanese headword, a tab, its English glosses separated by |.
export const JA_EN_ENTRIES: string = ${JSON.stringify(data)};
`;
writeFileSync(OUT, source);
console.log(
  `${join('packages/core/src/languages/ja', 'ja-en-dictionary.ts')}: ${lines.length} headwords, ${(Buffer.byteLength(source) / 1024).toFixed(0)} KiB`,
);
