import { bestDot, bestDotAt } from './vector-math.js';

/**
 * A request's tool vectors, by tool index, as the vector provider hands them to the semantic stage
 * (src/semantic/stage.ts): a list's matrix (ListMatrix) when the search named a whole list it holds,
 * else the vectors looked up for this search (LookedUpVectors).
 */
export interface ToolVectors {
  /** Tools of the request, with a vector or not. */
  readonly length: number;
  /** Tools with a vector. */
  readonly ready: number;
  /** Tool `index`'s vector; undefined where it has none yet (or is past what the project can keep). */
  at(index: number): Float32Array | undefined;
  /** The tools within reach (the first ones the project keeps vectors for) that have no vector yet. */
  absent(): number[];
  /** Looks these tools up again (the shared store or the background embedder may have brought them). */
  refresh(indexes: readonly number[], lookUp: (index: number) => Float32Array | undefined): void;
  /** All of them, by index (tests and diagnostics; a search reads them in place). */
  toArray(): Array<Float32Array | undefined>;
}

/** The vectors one search looked up tool by tool (a list named by no id, or too large for a matrix). */
export class LookedUpVectors implements ToolVectors {
  constructor(
    readonly vectors: Array<Float32Array | undefined>,
    /** The first tools the project keeps vectors for; the rest are never looked up. */
    readonly reach: number,
  ) {}

  get length(): number {
    return this.vectors.length;
  }

  get ready(): number {
    let ready = 0;
    for (const vector of this.vectors) if (vector !== undefined) ready += 1;
    return ready;
  }

  at(index: number): Float32Array | undefined {
    return this.vectors[index];
  }

  absent(): number[] {
    const absent: number[] = [];
    for (let index = 0; index < this.reach; index += 1) if (this.vectors[index] === undefined) absent.push(index);
    return absent;
  }

  refresh(indexes: readonly number[], lookUp: (index: number) => Float32Array | undefined): void {
    for (const index of indexes) this.vectors[index] = lookUp(index);
  }

  toArray(): Array<Float32Array | undefined> {
    return [...this.vectors];
  }
}

/** Bytes a matrix holds besides its numbers and ready flags (the objects, the typed arrays' headers). */
const MATRIX_OVERHEAD_BYTES = 256;

/**
 * One list's tool vectors as one matrix (row `index` is tool `index`'s vector) and which rows are
 * filled. Kept per list by the vector provider, so that a search of a list it already holds does no
 * per-tool cache lookups (a large share of a by-reference search's CPU in a profile) and the
 * similarities read one block of memory instead of 1,000 vectors scattered over the heap.
 *
 * The numbers stay 32-bit floats (2 MB per 1,000 tools of 512 numbers). 64-bit ones convert nothing as
 * they are read and win a micro-benchmark, with the rows hot in the processor's cache, but lose in the
 * service, where a search's other work leaves little of the cache for twice the bytes.
 * Figures: docs/performance.md#a-search-by-reference-the-lists-vectors-as-one-matrix
 *
 * Rows are copies of the vector cache's vectors: a vector is what its content id names (model and
 * text), so a row once filled stays right even when the cache later evicts the vector. The matrix is an
 * entry of the memory budget itself (its bytes are counted), not a view of the cache.
 */
export class ListMatrix implements ToolVectors {
  readonly values: Float32Array;
  readonly #filled: Uint8Array;
  #ready = 0;

  constructor(
    /** Tools of the list. */
    readonly length: number,
    /** Rows: the first tools, as many as the project keeps vectors for (VectorCache.capacity). */
    readonly rows: number,
    readonly dimensions: number,
    /** What the rows are for: the model, and the list's keys they were filled by (ListKeys.serial). */
    readonly model: string,
    readonly keysSerial: number,
  ) {
    this.values = new Float32Array(rows * dimensions);
    this.#filled = new Uint8Array(rows);
  }

  /** Bytes a matrix of `rows` × `dimensions` holds, as the budget counts it. */
  static bytes(rows: number, dimensions: number): number {
    return rows * (dimensions * Float32Array.BYTES_PER_ELEMENT + 1) + MATRIX_OVERHEAD_BYTES;
  }

  get bytes(): number {
    return ListMatrix.bytes(this.rows, this.dimensions);
  }

  get ready(): number {
    return this.#ready;
  }

  /** Rows not filled yet. */
  get missing(): number {
    return this.rows - this.#ready;
  }

  has(index: number): boolean {
    return index < this.rows && this.#filled[index] === 1;
  }

  /** Fills row `index` with a copy of `vector` (of the matrix's length; others are refused). */
  fill(index: number, vector: Float32Array): boolean {
    if (index >= this.rows || vector.length !== this.dimensions) return false;
    this.values.set(vector, index * this.dimensions);
    if (this.#filled[index] === 0) {
      this.#filled[index] = 1;
      this.#ready += 1;
    }
    return true;
  }

  /** The rows not filled yet, in order. */
  absent(): number[] {
    const absent: number[] = [];
    if (this.#ready === this.rows) return absent;
    for (let index = 0; index < this.rows; index += 1) if (this.#filled[index] === 0) absent.push(index);
    return absent;
  }

  refresh(indexes: readonly number[], lookUp: (index: number) => Float32Array | undefined): void {
    for (const index of indexes) {
      const vector = lookUp(index);
      if (vector !== undefined) this.fill(index, vector);
    }
  }

  /** A copy of row `index` (the stage reads the rows in place, with `bestDots`). */
  at(index: number): Float32Array | undefined {
    if (!this.has(index)) return undefined;
    const from = index * this.dimensions;
    return Float32Array.from(this.values.subarray(from, from + this.dimensions));
  }

  /** `bestDot(queries, row)` of every filled row into `similarity`, read in place; every query of the rows' length. */
  bestDots(queries: readonly Float32Array[], similarity: Float64Array): number {
    const { values, rows, dimensions } = this;
    const filled = this.#filled;
    let compared = 0;
    for (let index = 0; index < rows; index += 1) {
      if (filled[index] === 0) continue;
      similarity[index] = bestDotAt(queries, values, index * dimensions, dimensions);
      compared += 1;
    }
    return compared;
  }

  toArray(): Array<Float32Array | undefined> {
    return Array.from({ length: this.length }, (_, index) => this.at(index));
  }
}

/**
 * Each tool's best similarity over the queries (the largest dot product, as `bestDot`), NaN where the
 * tool has no vector of the queries' length; and how many were compared.
 *
 * Over a matrix (ListMatrix.bestDots) the rows are read in place, one block of memory: faster than
 * vectors held one by one in the cache, or than views of the matrix per row
 * (docs/performance.md#a-search-by-reference-the-lists-vectors-as-one-matrix).
 * The sums are `bestDot`'s, in the same order: the same results to the last bit
 * (test/semantic/tool-vectors.test.ts).
 */
export function bestDots(
  queries: readonly Float32Array[],
  tools: ToolVectors,
): { similarity: Float64Array; compared: number } {
  const similarity = new Float64Array(tools.length).fill(Number.NaN);
  const length = queries[0]?.length;
  if (length === undefined) return { similarity, compared: 0 };
  if (tools instanceof ListMatrix && tools.dimensions === length && queries.every((q) => q.length === length))
    return { similarity, compared: tools.bestDots(queries, similarity) };
  // Only vectors of the query's length compare (one read from Redis before this process learnt an
  // endpoint's length may not): others rank lexically.
  let compared = 0;
  for (let index = 0; index < tools.length; index += 1) {
    const vector = tools.at(index);
    if (vector?.length !== length) continue;
    similarity[index] = bestDot(queries, vector);
    compared += 1;
  }
  return { similarity, compared };
}
