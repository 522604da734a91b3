// Two pieces joined into one new string, the array kept from call to call: an array literal per call
// added about 40 % to the copies' garbage (docs/performance.md#held-strings-kept-flat).
const pieces = ['', ''];

/**
 * A copy of `text` that keeps no larger string alive, as one flat string. In V8 a cut text (`slice`,
 * from 13 characters on) is a view into the string it was cut from, so anything kept long (a cache
 * entry, a vocabulary word) that was cut from a request keeps the whole request text: a record keeping
 * the first 2,000 characters of a 180 KB description kept all 180 KB (figures:
 * docs/performance.md#cut-strings-kept-whole). Joining two pieces makes the engine copy the text into a
 * new string of its own. (A slice of a new string, ` ${text}`.slice(1), was a view again: equal
 * content, but comparing a view with a request's string cost the rank cache about twice as much as
 * comparing two flat strings: docs/performance.md#held-strings-kept-flat.)
 */
export function detachString(text: string): string {
  if (text.length < 13) return text;
  pieces[0] = text.slice(0, 1);
  pieces[1] = text.slice(1);
  const copy = pieces.join('');
  // The piece is a view of `text`: not kept past the call.
  pieces[1] = '';
  return copy;
}
