import type { Language } from './language.js';
import { latinLanguageOf } from './latin-markers.js';
import { CYRILLIC_LETTER, CYRILLIC_WORD, HAN_LETTER, HANGUL_LETTER, KANA, LATIN_WORD, NOT_ASCII } from './scripts.js';

/**
 * The languages core can read requests in, besides the tools' own (English), and how each is loaded.
 * A language's dictionary is not imported with core: `loadLanguages` loads it (a dynamic import of its
 * folder), and until then a request in it is ranked as any text without a dictionary is (CJK bigrams,
 * its Latin words). The service loads every language before it listens; the client's fallback loads
 * one when the router imports `@catalog-search/client/languages/<code>` (docs/development.md).
 */
interface LanguageEntry {
  readonly code: string;
  /** Whether a request is written in this language, by its script alone (no dictionary: run on every request). */
  readonly detect: (text: string) => boolean;
  /** Whether `detect` needs a letter outside ASCII (a language written in another script than Latin). */
  readonly nonAscii?: true;
  /** The language's folder, loaded on first need. */
  readonly load: () => Promise<{ language: Language }>;
}

// One line a language. Order matters: the first language whose `detect` accepts a request reads it.
const LANGUAGES: readonly LanguageEntry[] = [
  // A request with kana is Japanese (Chinese has none).
  { code: 'ja', nonAscii: true, detect: (text) => KANA.test(text), load: () => import('./ja/index.js') },
  // Han without kana is Chinese (a Japanese request with kanji has kana too, and reads as Japanese
  // above); Korean written with hanja has Hangul.
  {
    code: 'zh',
    nonAscii: true,
    detect: (text) => HAN_LETTER.test(text) && !HANGUL_LETTER.test(text),
    load: () => import('./zh/index.js'),
  },
  // Hangul is Korean (with or without hanja).
  { code: 'ko', nonAscii: true, detect: (text) => HANGUL_LETTER.test(text), load: () => import('./ko/index.js') },
  // Cyrillic is Russian (isRussian).
  { code: 'ru', nonAscii: true, detect: isRussian, load: () => import('./ru/index.js') },
  // Latin-script languages, told from English by their filler words (latin-markers.ts).
  { code: 'de', detect: (text) => latinLanguageOf(text) === 'de', load: () => import('./de/index.js') },
  { code: 'fr', detect: (text) => latinLanguageOf(text) === 'fr', load: () => import('./fr/index.js') },
  { code: 'es', detect: (text) => latinLanguageOf(text) === 'es', load: () => import('./es/index.js') },
  { code: 'pt', detect: (text) => latinLanguageOf(text) === 'pt', load: () => import('./pt/index.js') },
  { code: 'it', detect: (text) => latinLanguageOf(text) === 'it', load: () => import('./it/index.js') },
];

// Letters Ukrainian writes and Russian does not: a Ukrainian request is not read as Russian.
const UKRAINIAN = /[іїєґ]/iu;

/**
 * Whether `text` is Russian: it has Cyrillic words, at least as many as Latin ones (an English request
 * quoting a Russian word stays English; "Создай issue на GitHub" is Russian), and none of Ukrainian's letters.
 */
function isRussian(text: string): boolean {
  if (!CYRILLIC_LETTER.test(text) || UKRAINIAN.test(text)) return false;
  const cyrillic = text.match(CYRILLIC_WORD)!.length;
  return cyrillic >= (text.match(LATIN_WORD)?.length ?? 0);
}

/** The codes of the languages core can load, in the registry's order. */
export const LANGUAGE_CODES: readonly string[] = LANGUAGES.map((entry) => entry.code);

const loaded = new Map<string, Language>();
const loading = new Map<string, Promise<void>>();

/**
 * Loads the given languages (every one by default) so that requests in them are read word by word
 * against their dictionaries from then on. Idempotent: a language is loaded once per process.
 */
export function loadLanguages(codes: readonly string[] = LANGUAGE_CODES): Promise<void> {
  return Promise.all(
    codes.map((code) => {
      const entry = LANGUAGES.find((candidate) => candidate.code === code);
      if (entry === undefined)
        return Promise.reject(new Error(`unknown language "${code}"; known: ${LANGUAGE_CODES.join(', ')}`));
      let promise = loading.get(code);
      if (promise === undefined) {
        promise = entry.load().then(({ language }) => void loaded.set(code, language));
        // A failed load (a chunk missing from a bundle) may be tried again.
        promise.catch(() => loading.delete(code));
        loading.set(code, promise);
      }
      return promise;
    }),
  ).then(() => undefined);
}

/** The codes of the languages loaded so far. */
export function loadedLanguages(): string[] {
  return LANGUAGE_CODES.filter((code) => loaded.has(code));
}

/**
 * The loaded language `text` is written in, or undefined: when it is in none of the registry's
 * languages, or in one not loaded (then the request is ranked without a dictionary, as before).
 */
export function loadedLanguageOf(text: string): Language | undefined {
  // Telling the language costs every request (docs/performance.md#telling-a-latin-script-language): not
  // when none is loaded (core alone, the client without languages), nor, for an all-ASCII text, the
  // languages written in other scripts.
  if (loaded.size === 0) return undefined;
  const ascii = !NOT_ASCII.test(text);
  for (const entry of LANGUAGES)
    if (!(ascii && entry.nonAscii === true) && entry.detect(text)) return loaded.get(entry.code);
  return undefined;
}
