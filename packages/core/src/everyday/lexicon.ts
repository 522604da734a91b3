import { termOfWord } from '../text/vocabulary.js';
import { EVERYDAY_WORDS } from './everyday-words.js';

/** The lexicon's families (RULE_FAMILIES has them with the rules that are not lexicon entries). */
export type LexiconFamily = 'abbreviations' | 'verbs' | 'nouns';

/** What a request's word (or two words) may mean in a tool's description. */
interface LexiconEntry {
  family: LexiconFamily;
  /**
   * Each a word or a phrase, as written in everyday-words.ts, with its terms (stems) and each term
   * paired with the text (a reading's terms as ReadingsBuilder takes them), made once.
   */
  targets: readonly { text: string; terms: readonly string[]; glossed: readonly (readonly [string, string])[] }[];
}

let entries: Map<string, LexiconEntry[]> | undefined;
// The first words of the lexicon's two-word keys ("look" of "look up"): a request's word pairs are
// looked up only from these (docs/performance.md#lexicon-pairs-and-keys).
const pairStarts = new Set<string>();

/** The parsed lexicon, made on first use (a few hundred words: microseconds, a few KB). */
function lexicon(): Map<string, LexiconEntry[]> {
  if (entries !== undefined) return entries;
  entries = new Map();
  for (const line of EVERYDAY_WORDS.split('\n')) {
    const match = /^(abbreviations|verbs|nouns): (.+) => (.+)$/.exec(line.trim());
    if (match === null) continue;
    const entry: LexiconEntry = {
      family: match[1] as LexiconFamily,
      targets: match[3]!.split(';').map((target) => {
        const text = target.trim();
        const terms = termsOfPhrase(target);
        return { text, terms, glossed: terms.map((term) => [term, text] as const) };
      }),
    };
    for (const word of match[2]!.split(',')) {
      const key = lexiconKey(word);
      const space = key.indexOf(' ');
      if (space >= 0) pairStarts.add(key.slice(0, space));
      const list = entries.get(key);
      if (list === undefined) entries.set(key, [entry]);
      else list.push(entry);
    }
  }
  return entries;
}

/** The terms of a target word or phrase ("pull request": pull, request), as the vocabulary makes them. */
function termsOfPhrase(phrase: string): string[] {
  const terms: string[] = [];
  for (const word of phrase.trim().split(/[\s-]+/)) {
    const term = termOfWord(word);
    if (term !== undefined) terms.push(term);
  }
  return terms;
}

/** A word or two as the lexicon keys them: lower case, apostrophes and hyphens out ("what's" → "whats"). */
export function lexiconKey(words: string): string {
  const key = words.trim().toLowerCase();
  // Most words have neither: the two replacements cost more than this look (every word of a request is keyed).
  return /['’-]/.test(key) ? key.replace(/['’]/g, '').replace(/-/g, ' ') : key;
}

/** The entries for `key` (lexiconKey of one or two words), or none. */
export function lexiconEntries(key: string): readonly LexiconEntry[] {
  return lexicon().get(key) ?? NONE;
}

/**
 * The entries for two words together, each keyed by lexiconKey (one word each, so without spaces), or
 * none. Most words start no pair: those cost a set lookup, not a string built and looked up.
 */
export function pairEntries(firstKey: string, secondKey: string): readonly LexiconEntry[] {
  if (entries === undefined) lexicon();
  return pairStarts.has(firstKey) ? lexiconEntries(`${firstKey} ${secondKey}`) : NONE;
}

const NONE: readonly LexiconEntry[] = [];
