// A sub-query's tools in rank order: best score first, then list order. Array.prototype.sort with a
// comparator calls the comparator for each of its n log n comparisons, and a warm search of a 1,000-tool
// list sorted about 300 matched tools that way: the largest item of its scoring's profile. A merge sort
// with the comparison written in gives the same order (the order is total: no two tools compare equal)
// at a fraction of the cost (docs/performance.md#a-sub-querys-tools-put-in-order).

/** Whether tool `a` ranks before tool `b`: the higher score, then the earlier in the list. */
export function ranksBefore(a: number, b: number, scores: Float64Array): boolean {
  return scores[a]! > scores[b]! || (!(scores[a]! < scores[b]!) && a < b);
}

// Runs this long are put in order by insertion first, then merged pairwise.
const RUN = 16;
// The merge's two buffers, kept from call to call and grown to the longest list (sorting is synchronous).
let buffer = new Int32Array(1024);
let spare = new Int32Array(1024);

/** Puts `docs` (distinct tool indices) in rank order, in place. */
export function sortByScore(docs: number[], scores: Float64Array): void {
  const n = docs.length;
  if (buffer.length < n) {
    buffer = new Int32Array(2 * n);
    spare = new Int32Array(2 * n);
  }
  let from = buffer;
  let to = spare;
  for (let i = 0; i < n; i += 1) from[i] = docs[i]!;
  for (let start = 0; start < n; start += RUN) {
    const end = Math.min(start + RUN, n);
    for (let i = start + 1; i < end; i += 1) {
      const doc = from[i]!;
      let j = i - 1;
      for (; j >= start && ranksBefore(doc, from[j]!, scores); j -= 1) from[j + 1] = from[j]!;
      from[j + 1] = doc;
    }
  }
  for (let width = RUN; width < n; width *= 2) {
    for (let left = 0; left < n; left += 2 * width) {
      const middle = Math.min(left + width, n);
      const right = Math.min(left + 2 * width, n);
      let i = left;
      let j = middle;
      let k = left;
      while (i < middle && j < right) to[k++] = ranksBefore(from[j]!, from[i]!, scores) ? from[j++]! : from[i++]!;
      while (i < middle) to[k++] = from[i++]!;
      while (j < right) to[k++] = from[j++]!;
    }
    const sorted = to;
    to = from;
    from = sorted;
  }
  for (let i = 0; i < n; i += 1) docs[i] = from[i]!;
}
