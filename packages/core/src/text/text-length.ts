// Text limits count characters as Unicode code points, in the service, the client and the spec
// alike (JSON Schema's `maxLength` counts code points too): 600 emoji are 600 characters, not the
// 1,200 UTF-16 units that `String.length` reports.

/** Hard limit of one sub-query (MAX_QUERY_CHARS' default). The longest real task in ../shared/bench
 * (a LiveMCPBench task with an inline base64 image) is 18,686 characters. */
export const DEFAULT_MAX_QUERY_CHARS = 32_000;
/** Hard limit of `context` (MAX_CONTEXT_CHARS' default). */
export const DEFAULT_MAX_CONTEXT_CHARS = 64_000;
/** Ranking reads at most this prefix of each sub-query, as it does with descriptions: a pasted
 * image or log adds no evidence past the task's words, only tokenizing work. */
export const RANKED_QUERY_CHARS = 2_000;

/** Code points in `text`, counting no further than `stopAt` (so a 5 MB string costs no more than the limit). */
export function codePointLength(text: string, stopAt = Infinity): number {
  // Every code point is one or two UTF-16 units: when even the unit count is within the bound, so is the answer.
  if (text.length <= stopAt && !hasSurrogates(text)) return text.length;
  let count = 0;
  for (let i = 0; i < text.length && count <= stopAt; i += 1) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i += 1;
    }
    count += 1;
  }
  return count;
}

/** True when `text` is longer than `max` code points. */
export function exceedsCodePoints(text: string, max: number): boolean {
  if (text.length <= max) return false;
  return codePointLength(text, max) > max;
}

/** The first `max` code points of `text` (never splits a surrogate pair). */
export function codePointPrefix(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = 0;
  for (let count = 0; count < max && end < text.length; count += 1) {
    const unit = text.charCodeAt(end);
    end +=
      unit >= 0xd800 && unit <= 0xdbff && end + 1 < text.length && isLowSurrogate(text.charCodeAt(end + 1)) ? 2 : 1;
  }
  return text.slice(0, end);
}

const isLowSurrogate = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff;
const SURROGATE = /[\ud800-\udfff]/;
const hasSurrogates = (text: string) => SURROGATE.test(text);
