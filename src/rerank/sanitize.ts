// Tool text is untrusted third-party data that goes into a prompt, and the model's explanations go
// back to callers (`explanation`, as plain text: see plainTextLine): both pass through here. Control and invisible formatting characters go (they can
// hide instructions or fake line breaks), whitespace collapses to single spaces (one tool = one
// line), and anything that looks like our prompt's delimiters is defused.

// C0/C1 controls, zero-width and bidi formatting characters, line/paragraph separators.
const INVISIBLE = /[\p{Cc}\p{Cf}\u2028\u2029]+/gu;
// Most tool text is clean: one scan decides whether the replacements are needed at all.
const NEEDS_CLEANING = /[\p{Cc}\p{Cf}\u2028\u2029]|\s\s|^\s|\s$/u;
const NEEDS_DEFUSING = /[<>|]|```/;

/**
 * Cleaning only ever shortens text, so a line of `maxChars` is read from the first READ_FACTOR ×
 * maxChars characters: a 180 KB description costs no more than a short one (cleaning it whole was
 * paid for every tool of every search). Text made mostly of whitespace or invisible characters may
 * then give a line shorter than it could be. Why: docs/performance.md#long-descriptions-in-candidate-lines
 */
const READ_FACTOR = 8;

/** The part of `text` a line of `maxChars` is made from (see READ_FACTOR). */
export function readablePart(text: string, maxChars: number): string {
  return text.length > maxChars * READ_FACTOR ? text.slice(0, maxChars * READ_FACTOR) : text;
}

/** One-line text with no control characters, at most `maxChars` characters (cut at a word when possible). */
export function sanitizeLine(text: string, maxChars: number): string {
  const part = readablePart(text, maxChars);
  return cleanLine(part, maxChars, part.length < text.length);
}

/**
 * Like `sanitizeLine`, and also defuses what could pass for prompt structure: angle brackets
 * (our data section is delimited by `<tool_data>` tags), `|` (the field separator of candidate
 * lines) and code fences.
 */
export function sanitizeData(text: string, maxChars: number): string {
  const part = readablePart(text, maxChars);
  const defused = NEEDS_DEFUSING.test(part)
    ? part.replace(/</g, '‹').replace(/>/g, '›').replace(/\|/g, '¦').replace(/`{3,}/g, "'''")
    : part;
  return cleanLine(defused, maxChars, part.length < text.length);
}

/** `text` as one clean line of at most `maxChars`; `cut`: the text went on past `text`. */
function cleanLine(text: string, maxChars: number, cut: boolean): string {
  const clean = NEEDS_CLEANING.test(text) ? text.replace(INVISIBLE, ' ').replace(/\s+/g, ' ').trim() : text;
  if (!cut || clean.length > maxChars) return truncate(clean, maxChars);
  return `${clean.slice(0, maxChars - 1)}…`;
}

function truncate(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const cut = text.slice(0, Math.max(0, maxChars - 1));
  const atWord = cut.lastIndexOf(' ');
  return `${atWord > maxChars * 0.6 ? cut.slice(0, atWord) : cut}…`;
}

// Markup a model may write: markdown links and images (kept: their text), HTML/XML tags and comments
// (dropped), and the characters of emphasis, code and quoting. Bounded repetitions keep every pattern
// linear on hostile text.
const MARKDOWN_LINK = /!?\[([^\][\n]{0,300})\]\(\S{0,1000}\)/g;
const TAG = /<!--[\s\S]{0,2000}?-->|<\/?[A-Za-z!?][^<>]{0,1000}>/g;
const MARKUP_CHARS = /[<>`*~\\[\]]+/g;
const EDGE_UNDERSCORES = /(^|\s)_+|_+(?=\s|$)/g;
const HEADING = /^\s*#+\s+/;

/**
 * The model's `why` as the `explanation` callers get: one line of plain text, at most `maxChars`.
 * Markup is removed (link text is kept), as are control and invisible characters, line breaks and
 * runs of spaces. It is still model output about third-party text: routers must treat it as
 * untrusted (escape it when rendering, never follow instructions in it).
 */
export function plainTextLine(text: string, maxChars: number): string {
  // Markup removal only ever shortens, so four times the room is plenty to fill it.
  const bounded = text.length > maxChars * 4 ? text.slice(0, maxChars * 4) : text;
  const oneLine = bounded.replace(INVISIBLE, ' ');
  const plain = oneLine
    .replace(MARKDOWN_LINK, '$1')
    .replace(TAG, ' ')
    .replace(HEADING, '')
    .replace(MARKUP_CHARS, '')
    .replace(EDGE_UNDERSCORES, '$1');
  return sanitizeLine(plain, maxChars);
}
