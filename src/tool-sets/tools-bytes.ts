// Where a search body's `tools` lie in its bytes, found without parsing the body: so that a list sent
// again byte for byte can be recognised by its bytes (resent-body.ts) instead of being parsed into
// objects only to be found equal to the list the project sent last.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
const TOOLS_KEY = Buffer.from('"tools"');

/** A byte range, end exclusive. */
interface Span {
  start: number;
  end: number;
}

/**
 * The bytes of the value of the top-level key `tools` of a JSON object, or undefined when the body is
 * not an object, names `tools` twice, or has a top-level key with an escape (which could spell
 * `tools`): the caller then parses the body as any other. `skipTools(at)` gives the index after the
 * `tools` value that starts at `at`, or -1 to stop looking (afterValue finds it; a caller that knows
 * the bytes to expect checks them instead). Lenient about the syntax around it: the caller parses the
 * rest of the body, and a body that is not JSON is refused by that parse.
 */
export function toolsValueSpan(
  bytes: Buffer,
  skipTools: (at: number) => number = (at) => afterValue(bytes, at),
): Span | undefined {
  let at = skipSpace(bytes, 0);
  if (bytes[at] !== OPEN_OBJECT) return undefined;
  at = skipSpace(bytes, at + 1);
  let span: Span | undefined;
  for (;;) {
    if (bytes[at] !== QUOTE) return undefined;
    const keyEnd = afterString(bytes, at);
    if (keyEnd < 0 || hasByte(bytes, BACKSLASH, at, keyEnd)) return undefined;
    const isTools = keyEnd - at === TOOLS_KEY.length && bytes.compare(TOOLS_KEY, 0, TOOLS_KEY.length, at, keyEnd) === 0;
    at = skipSpace(bytes, keyEnd);
    if (bytes[at] !== COLON) return undefined;
    at = skipSpace(bytes, at + 1);
    if (isTools && span !== undefined) return undefined;
    const end = isTools ? skipTools(at) : afterValue(bytes, at);
    if (end < 0) return undefined;
    if (isTools) span = { start: at, end };
    at = skipSpace(bytes, end);
    if (bytes[at] === COMMA) {
      at = skipSpace(bytes, at + 1);
      continue;
    }
    if (bytes[at] !== CLOSE_OBJECT || skipSpace(bytes, at + 1) !== bytes.length) return undefined;
    return span;
  }
}

/**
 * The index after the JSON value that starts at `at`, or -1 when it does not end. Exact for valid
 * JSON (strings are skipped by their closing quote, brackets counted outside them); not a validator.
 */
function afterValue(bytes: Buffer, at: number): number {
  const first = bytes[at];
  if (first === QUOTE) return afterString(bytes, at);
  if (first !== OPEN_OBJECT && first !== OPEN_ARRAY) {
    // A number, true, false or null.
    let end = at;
    while (end < bytes.length && !endsScalar(bytes[end]!)) end += 1;
    return end > at ? end : -1;
  }
  let depth = 0;
  for (let index = at; index < bytes.length;) {
    const byte = bytes[index]!;
    if (byte === QUOTE) {
      index = afterString(bytes, index);
      if (index < 0) return -1;
      continue;
    }
    if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) depth += 1;
    else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
      depth -= 1;
      if (depth === 0) return index + 1;
    }
    index += 1;
  }
  return -1;
}

/** The index after the string whose opening quote is at `at`, or -1 when it does not close. */
function afterString(bytes: Buffer, at: number): number {
  let quote = at;
  for (;;) {
    // Native search: the strings (descriptions, schemas) are most of a list's bytes.
    quote = bytes.indexOf(QUOTE, quote + 1);
    if (quote < 0) return -1;
    let slashes = 0;
    while (bytes[quote - 1 - slashes] === BACKSLASH) slashes += 1;
    if (slashes % 2 === 0) return quote + 1;
  }
}

function skipSpace(bytes: Buffer, at: number): number {
  let index = at;
  while (index < bytes.length && isSpace(bytes[index]!)) index += 1;
  return index;
}

const isSpace = (byte: number) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
const endsScalar = (byte: number) => isSpace(byte) || byte === COMMA || byte === CLOSE_OBJECT || byte === CLOSE_ARRAY;

function hasByte(bytes: Buffer, byte: number, start: number, end: number): boolean {
  for (let index = start; index < end; index += 1) if (bytes[index] === byte) return true;
  return false;
}
