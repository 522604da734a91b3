/**
 * A copy of `text` that keeps no larger string alive. In V8 a cut text (`slice`, from 13 characters on)
 * is a view into the string it was cut from, so anything kept long (a cache entry, a vocabulary word)
 * that was cut from a request keeps the whole request text: a record keeping the first 2,000
 * characters of a 180 KB description kept all 180 KB. Prepending a character and slicing it off again
 * makes the engine flatten a new string of the text alone (figures: docs/performance.md#cut-strings-kept-whole).
 */
export function detachString(text: string): string {
  return text.length < 13 ? text : ` ${text}`.slice(1);
}
