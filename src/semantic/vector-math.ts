// Dot products over embedding vectors: the inner loop of semantic ranking, kept apart from the
// embedder's contract.

/**
 * `a · b` over the length of the shorter. Four running sums rather than one, so that the additions do
 * not wait on each other (figures: docs/performance.md#tool-set-references).
 */
export function dot(a: Float32Array, b: Float32Array): number {
  return dotAt(a, b, 0, Math.min(a.length, b.length));
}

/** The largest `dot(query, vector)` over the queries. */
export function bestDot(queries: readonly Float32Array[], vector: Float32Array): number {
  return bestDotAt(queries, vector, 0, vector.length);
}

/**
 * The largest dot product of a query with the vector of `length` numbers at `at` in `values` (a vector
 * of its own, or a row of a list's matrix, tool-vectors.ts), each over the shorter of the two. Two
 * queries of one length go through one pass over the vector, so each of its numbers is read once for
 * both, faster than one `dot` per query (figures: docs/performance.md#tool-set-references). Each query's
 * four running sums add up exactly as in `dot`, so the result is the same number, to the last bit,
 * wherever the vector is.
 */
export function bestDotAt(queries: readonly Float32Array[], values: Float32Array, at: number, length: number): number {
  let best = -Infinity;
  let q = 0;
  for (; q + 1 < queries.length; q += 2) {
    const a = queries[q]!;
    const b = queries[q + 1]!;
    const score =
      a.length === b.length
        ? maxOfPairAt(a, b, values, at, Math.min(a.length, length))
        : Math.max(dotAt(a, values, at, Math.min(a.length, length)), dotAt(b, values, at, Math.min(b.length, length)));
    if (score > best) best = score;
  }
  if (q < queries.length) {
    const a = queries[q]!;
    const score = dotAt(a, values, at, Math.min(a.length, length));
    if (score > best) best = score;
  }
  return best;
}

/** `a · v` over `length` numbers, v at `at` in `values`: four running sums, added up in one order. */
function dotAt(a: Float32Array, values: Float32Array, at: number, length: number): number {
  const whole = length - (length % 4);
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = 0;
  for (; i < whole; i += 4) {
    s0 += a[i]! * values[at + i]!;
    s1 += a[i + 1]! * values[at + i + 1]!;
    s2 += a[i + 2]! * values[at + i + 2]!;
    s3 += a[i + 3]! * values[at + i + 3]!;
  }
  for (; i < length; i += 1) s0 += a[i]! * values[at + i]!;
  return s0 + s1 + s2 + s3;
}

/** max(a · v, b · v) over `length` numbers in one pass over v (at `at` in `values`), each as `dotAt` sums. */
function maxOfPairAt(a: Float32Array, b: Float32Array, values: Float32Array, at: number, length: number): number {
  const whole = length - (length % 4);
  let a0 = 0;
  let a1 = 0;
  let a2 = 0;
  let a3 = 0;
  let b0 = 0;
  let b1 = 0;
  let b2 = 0;
  let b3 = 0;
  let i = 0;
  for (; i < whole; i += 4) {
    const v0 = values[at + i]!;
    const v1 = values[at + i + 1]!;
    const v2 = values[at + i + 2]!;
    const v3 = values[at + i + 3]!;
    a0 += a[i]! * v0;
    a1 += a[i + 1]! * v1;
    a2 += a[i + 2]! * v2;
    a3 += a[i + 3]! * v3;
    b0 += b[i]! * v0;
    b1 += b[i + 1]! * v1;
    b2 += b[i + 2]! * v2;
    b3 += b[i + 3]! * v3;
  }
  for (; i < length; i += 1) {
    a0 += a[i]! * values[at + i]!;
    b0 += b[i]! * values[at + i]!;
  }
  return Math.max(a0 + a1 + a2 + a3, b0 + b1 + b2 + b3);
}
