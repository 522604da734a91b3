import { NOT_ASCII } from './scripts.js';
import { STOP_WORDS } from './stop-words.js';

/**
 * Which Latin-script language a request is written in, by its filler words: German, French, Spanish,
 * Portuguese and Italian requests are told from English (and from each other) by the articles,
 * prepositions and pronouns they cannot do without. This runs on every request (the registry's
 * `detect`), so it is word lists only, no dictionary; the language folders drop the same words
 * (`latin-language.ts`).
 *
 * Per language, `strong` words are never English words ("eine", "der", "avec", "para"), `shared` ones
 * are filler there and English words here ("an", "in", "die", "con", "per"). A request is in a
 * language when it has a strong word, at least two of its filler words, and more of them than English
 * filler words of its own (or one strong word of four letters or more and no English filler word; or, without a strong word,
 * three different shared ones and no English one): an English request keeps its answer, whatever German or Italian word it quotes
 * (`packages/core/test/latin-languages.test.ts` and the request digests, docs/ranking.md).
 */
export type LatinCode = 'de' | 'fr' | 'es' | 'pt' | 'it';

interface Markers {
  strong: ReadonlySet<string>;
  shared: ReadonlySet<string>;
  /** Letters the language writes and English does not: a text with one counts one strong word more. */
  letters: RegExp;
}

const words = (list: string): ReadonlySet<string> => new Set(list.split(' '));

export const MARKERS: Readonly<Record<LatinCode, Markers>> = {
  de: {
    strong: words(
      'der das dem den ein eine einen einem einer eines und für über oder nicht mein meine meinen meinem meiner ' +
        'dein deine deinen deinem unser unsere unseren unserem bitte auf bei nach vom zum zur ich wir mir mich uns ' +
        'welche welcher welches welchen gibt sind wird werden wurde wurden kann soll sollen alle allen auch noch dass ' +
        'wenn wie wo dieser diese dieses diesen ihr ihre ihren ihrem sich zu aus mit von ist habe haben mal',
    ),
    shared: words('die an am in im um was so es du man also hat'),
    letters: /[äöüß]/u,
  },
  fr: {
    strong: words(
      'le les une et avec pour dans sur mon mes ton tes ses sont qui que quoi quel quelle quels quelles je tu nous ' +
        'vous elle au aux cette ces tous toutes moi toi leur leurs du des est à il ne pas ' +
        'puis aussi très tres votre vos notre nos plait',
    ),
    shared: words('la un de a en son sa ma ce l d j y s'),
    letters: /[àâçèéêëîïôùûœ]/u,
  },
  es: {
    strong: words(
      'el los las una unos unas del y con para por mis tus sus qué que cómo cuál cuáles hay está están este esta ' +
        'estos estas todos todas también nuevo nueva mañana favor mí tu les sobre desde hasta entre cuando donde ' +
        'dónde pero muy ya hoy',
    ),
    shared: words('la un de a en me o es mi su lo al se le todo'),
    letters: /[ñ¡¿áéíóú]/u,
  },
  pt: {
    strong: words(
      'os um uma uns umas da dos das nas meu minha meus minhas seu sua seus suas são que qual quais tem está este ' +
        'esta estes estas todos todas também novo nova pra pelo pela não é para por ao às você ' +
        'isso isto esse essa hoje amanhã favor',
    ),
    shared: words('o a as do no de e se me com em nos na pro'),
    letters: /[ãõçáéíóúâêôà]/u,
  },
  it: {
    strong: words(
      'il gli uno una della dei degli delle alla alle ai nel nella nei nelle mio mia miei mie tuo tua è sono che ' +
        'cosa quale quali tutti tutte anche nuovo nuova di dal dalla sul sulla da questo ' +
        'questa quello quella oggi domani favore',
    ),
    shared: words('un per a in e me al del ci con lo la le su'),
    letters: /[àèéìòù]/u,
  },
};

const CODES = Object.keys(MARKERS) as LatinCode[];

let lastText: string | undefined;
let lastCode: LatinCode | undefined;

/** The Latin-script language `text` is written in, or undefined (English, or too little to tell). */
export function latinLanguageOf(text: string): LatinCode | undefined {
  // The registry asks once per language about the same text: one reading serves them all.
  if (text === lastText) return lastCode;
  lastText = text;
  return (lastCode = readLanguage(text));
}

// Quoted text is what the request is about, not the language it is written in ("Translate the following
// text from French to English: “Le système éducatif…”").
const QUOTED = /"[^"]*"|“[^”]*”|«[^»]*»|„[^“”]*[“”]/g;
// A word: letters only, written in lower case or capitalized (base64, identifiers and "A, B, C" are none).
const WORD = /^(?:\p{Lu}?\p{Ll}+|\p{Ll})$/u;

// What each marker word is, as bits, so that a request's words are looked up once, not once per
// language (docs/performance.md#telling-a-latin-script-language): bit 2c for a strong word of CODES[c],
// bit 2c + 1 for a shared one, ENGLISH for an English filler word.
const ENGLISH = 1 << (2 * CODES.length);
const MARKER_BITS = new Map<string, number>();
const mark = (words: Iterable<string>, bit: number): void => {
  for (const word of words) MARKER_BITS.set(word, (MARKER_BITS.get(word) ?? 0) | bit);
};
for (let c = 0; c < CODES.length; c += 1) {
  mark(MARKERS[CODES[c]!].strong, 1 << (2 * c));
  mark(MARKERS[CODES[c]!].shared, 1 << (2 * c + 1));
}
mark(STOP_WORDS, ENGLISH);

function readLanguage(text: string): LatinCode | undefined {
  const unquoted = QUOTED_MARK.test(text) ? text.replace(QUOTED, ' ') : text;
  const tokens = asciiWordsOf(unquoted) ?? wordsOf(unquoted);
  if (tokens.length < 2) return undefined;
  const bits = new Array<number>(tokens.length);
  let any = 0;
  for (let t = 0; t < tokens.length; t += 1) any |= bits[t] = MARKER_BITS.get(tokens[t]!) ?? 0;
  // Letters English does not write: none in an all-ASCII text (asciiWordsOf read it whole).
  const lower = NOT_ASCII.test(unquoted) ? unquoted.toLowerCase() : undefined;
  // No marker word of any language and no such letter: English, or too little to tell.
  if ((any & (ENGLISH - 1)) === 0 && lower === undefined) return undefined;
  let best: LatinCode | undefined;
  let bestCount = 0;
  for (let c = 0; c < CODES.length; c += 1) {
    const strongBit = 1 << (2 * c);
    const sharedBit = strongBit << 1;
    let strongCount = lower !== undefined && MARKERS[CODES[c]!].letters.test(lower) ? 1 : 0;
    let sharedCount = 0;
    // A strong word of four letters or more: "ai" or "os" alone is as likely an abbreviation ("eu ai act").
    let longStrong = false;
    let sharedSeen: Set<string> | undefined;
    let english = 0;
    for (let t = 0; t < tokens.length; t += 1) {
      const bit = bits[t]!;
      if ((bit & strongBit) !== 0) {
        strongCount += 1;
        longStrong ||= tokens[t]!.length >= 4;
      } else if ((bit & sharedBit) !== 0) {
        sharedCount += 1;
        (sharedSeen ??= new Set()).add(tokens[t]!);
      } else if ((bit & ENGLISH) !== 0) english += 1;
    }
    const count = strongCount + sharedCount;
    // One strong word of four letters or more is enough with no English filler word ("Erstelle einen
    // neuen Ordner": "einen" counted as a word of an English request); without a strong word, three different shared ones
    // and no English filler word ("Encontra o documento de onboarding no Notion": English read "no"
    // as a negation and answered nothing; "in … in … am" is English's too).
    const marked =
      strongCount >= 1 ? count >= 2 || (english === 0 && longStrong) : (sharedSeen?.size ?? 0) >= 3 && english === 0;
    if (marked && count > english && count > bestCount) {
      best = CODES[c];
      bestCount = count;
    }
  }
  return best;
}

const QUOTED_MARK = /["“«„]/;

/** The words of `text` (WORD's, lower case), by the Unicode regular expressions. */
function wordsOf(text: string): string[] {
  return text
    .split(/[^\p{L}\p{M}]+/u)
    .filter((token) => WORD.test(token))
    .map((token) => token.toLowerCase());
}

/**
 * wordsOf for an all-ASCII text by a scan of its char codes (most requests): runs of letters, each a
 * word when all lower case after its first letter and not a lone capital. Undefined for other text.
 */
function asciiWordsOf(text: string): string[] | undefined {
  const words: string[] = [];
  let i = 0;
  while (i < text.length) {
    const first = text.charCodeAt(i);
    if (first >= 128) return undefined;
    if (!isAsciiLetter(first)) {
      i += 1;
      continue;
    }
    const start = i;
    let lowerAfterFirst = true;
    for (i += 1; i < text.length; i += 1) {
      const code = text.charCodeAt(i);
      if (code >= 128) return undefined;
      if (code >= 97 && code <= 122) continue;
      if (code >= 65 && code <= 90) lowerAfterFirst = false;
      else break;
    }
    if (lowerAfterFirst && (first >= 97 || i - start >= 2)) words.push(text.slice(start, i).toLowerCase());
  }
  return words;
}

const isAsciiLetter = (code: number): boolean => (code >= 97 && code <= 122) || (code >= 65 && code <= 90);
