// Argument values in a request: a URL, an e-mail address, a domain, a file name or a path. They say
// what a tool should act on, not what it does, so their pieces are no words of the request ("https",
// "com", "old" of old.txt matched descriptions by chance); each value stands instead for its kind
// ("url", "file", "directory"), which is what a tool that takes it says.

type ArgumentKind = 'url' | 'email' | 'domain' | 'repository' | 'file' | 'directory' | 'quote' | 'arithmetic';

// The words a tool that takes a value of each kind uses (each one reading of the value).
const KIND_WORDS: Record<ArgumentKind, readonly string[]> = {
  url: ['url'],
  email: ['email'],
  domain: ['domain', 'url'],
  repository: ['repository', 'repo'],
  file: ['file'],
  directory: ['directory', 'folder', 'path'],
  quote: ['text'],
  arithmetic: ['calculate', 'math', 'expression'],
};

// Top-level domains people write in requests; a dotted word ending in another is a file name
// ("notes.md", "next.js") when its end looks like an extension.
const DOMAIN_ENDINGS = new Set(
  'com org net io dev ai co app edu gov me info biz us uk de fr jp cn eu ca au in ru nl xyz tech site cloud'.split(' '),
);
// What a value looks like: a URL, an e-mail address, a path (~/, ./, / or a Windows drive), a dotted name.
const VALUE =
  /(?:\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+)|(?:(?<![\w/.~-])[A-Za-z0-9][A-Za-z0-9-]*\/[A-Za-z0-9][\w.-]*(?![\w/]))|(?:\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+)|(?:(?<![\w/])(?:~|\.{1,2})?\/[\w.~@%+-]+(?:\/[\w.~@%+-]*)*)|(?:\b[A-Za-z]:\\[^\s"'<>]*)|(?:\b[\w-]+(?:\.[\w-]+)*\.[A-Za-z][A-Za-z0-9]{0,4}\b)/g;
const EXTENSION = /\.([A-Za-z][A-Za-z0-9]{0,4})$/;

/** One value found in a request, where it stands and what it is. */
export interface FoundValue {
  start: number;
  end: number;
  text: string;
  kind: ArgumentKind;
  /**
   * The words it may stand for, each one reading: its kind's, then the names in it (a path's folders and
   * file name, a file's extension, a site's host name), so that the value counts once, by its best.
   */
  words: readonly string[];
  /**
   * A path or file name keeps its words as words of the request as well ("/root/excel/sales.xlsx":
   * excel, sales, xlsx), since folder and file names often say what a file holds; a URL's or an
   * address's pieces ("https", "www", "com") say nothing.
   */
  spelled: boolean;
}

// Quoted words (two or more: a single quoted word may be a tool's name) are what to write, send or
// look for; an arithmetic expression ("17% of 2350", "3 * 7") asks for a calculation. Dates (2023-10-05)
// and fractions of a day (24/7) are neither.
const QUOTED = /(?<![\w])(['"‘“])([^'"‘’“”\n]*\s[^'"‘’“”\n]*)(['"’”])(?![\w])/g;
const ARITHMETIC = /\b\d+(?:\.\d+)?\s*(?:%\s*of\s*\d+(?:\.\d+)?|(?:[+*×÷^]\s*\(?\s*\d+(?:\.\d+)?\s*)+)/g;

// What each pattern cannot match without: QUOTED opens with a quote mark, ARITHMETIC starts with a digit,
// and every branch of VALUE has a slash, an @, a backslash or a dot. Most requests have none of them, and
// a pattern not run is most of what finding no value costs (docs/performance.md#argument-values-not-looked-for).
const MAY_BE_QUOTED = /['"‘“]/;
const MAY_BE_ARITHMETIC = /\d/;
const MAY_BE_VALUE = /[/@\\.]/;
const MAY_HAVE_VALUES = /['"‘“\d/@\\.]/;

/** The argument values of `text`, in order; none overlap. */
export function findArgumentValues(text: string): FoundValue[] {
  if (!MAY_HAVE_VALUES.test(text)) return [];
  const found: FoundValue[] = [];
  for (const [pattern, kind, guard] of [
    [QUOTED, 'quote', MAY_BE_QUOTED],
    [ARITHMETIC, 'arithmetic', MAY_BE_ARITHMETIC],
  ] as const) {
    if (!guard.test(text)) continue;
    for (const match of text.matchAll(pattern)) {
      const value = match[0].trimEnd();
      found.push({
        start: match.index,
        end: match.index + value.length,
        text: value,
        kind,
        words: KIND_WORDS[kind],
        spelled: kind === 'quote',
      });
    }
  }
  for (const match of MAY_BE_VALUE.test(text) ? text.matchAll(VALUE) : []) {
    // Trailing sentence punctuation belongs to the sentence ("… at https://x.com.").
    const value = match[0].replace(/[.,;:!?)]+$/, '');
    const kind = kindOf(value);
    if (kind === undefined) continue;
    const spelled = kind === 'file' || kind === 'directory';
    const words = spelled ? KIND_WORDS[kind] : [...KIND_WORDS[kind], ...namesIn(value, kind)];
    const start = match.index;
    if (found.some((other) => start < other.end && other.start < start + value.length)) continue;
    found.push({ start, end: start + value.length, text: value, kind, words, spelled });
  }
  return found.sort((a, b) => a.start - b.start);
}

/** The names in a URL's or domain's host that may say what it is ("youtube" of www.youtube.com). */
function namesIn(value: string, kind: ArgumentKind): string[] {
  if (kind === 'email') return [];
  const host = value.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').split(/[/?#:]/)[0]!;
  return host
    .split('.')
    .slice(0, -1)
    .filter((label) => label !== 'www' && /[A-Za-z]{2}/.test(label));
}

// Words people join with a slash that name no repository ("read and/or write", "on/off").
const SLASH_PAIRS = new Set(
  (
    'and/or either/or yes/no on/off read/write input/output true/false he/she his/her him/her client/server ' +
    'pros/cons start/stop open/close enable/disable allow/deny get/set push/pull min/max am/pm ok/cancel'
  ).split(' '),
);
// A repository as code hosts name it: owner/name ("vercel/next.js", "acme/web"); an owner has no dots.
const REPOSITORY = /^[A-Za-z0-9][A-Za-z0-9-]*\/[A-Za-z0-9][\w.-]*$/;

/** What a value is, or undefined for text that only looks like one ("e.g", "v1.2", "and/or"). */
function kindOf(value: string): ArgumentKind | undefined {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return 'url';
  if (REPOSITORY.test(value)) {
    const [owner, name] = value.split('/') as [string, string];
    // Three letters a side: units ("km/hr", "mb/s") are no repositories.
    const named = /[A-Za-z]{3}/.test(owner) && /[A-Za-z]{3}/.test(name);
    return named && !SLASH_PAIRS.has(value.toLowerCase()) ? 'repository' : undefined;
  }
  if (value.includes('@') && !value.startsWith('/') && !value.startsWith('~')) return 'email';
  const isPath = /^(?:~|\.{1,2})?\//.test(value) || /^[A-Za-z]:\\/.test(value);
  const last = value.split(/[\\/]/).filter(Boolean).pop() ?? '';
  const extension = EXTENSION.exec(last)?.[1];
  if (isPath) {
    // A bare "/" or a path of one letter is punctuation ("and/or" never reaches here: no leading slash).
    if (!/[A-Za-z]{2}/.test(value)) return undefined;
    return extension && !/^\d/.test(extension) && last.length > extension.length + 1 ? 'file' : 'directory';
  }
  if (extension === undefined || /^\d+$/.test(value.replace(/\./g, ''))) return undefined;
  const lower = extension.toLowerCase();
  if (DOMAIN_ENDINGS.has(lower) && value.split('.').length >= 2 && value.split('.')[0]!.length >= 2) return 'domain';
  // "e.g", "i.e": abbreviations with a dot are no file names; a name needs two letters before the dot.
  if (!/[A-Za-z0-9_-]{1,}\.[A-Za-z]/.test(value) || value.indexOf('.') < 1) return undefined;
  if (/^(?:e\.g|i\.e|etc|vs)$/i.test(value)) return undefined;
  return 'file';
}
