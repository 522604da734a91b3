/**
 * Term ids in one reusable Int32Array, for the tokenizer's output and analysis's scratch lists.
 * Analysing a 1,000-tool list emits about 50,000 ids; JS arrays emptied with `length = 0` drop their
 * storage and re-grow it on the next push, and that garbage cost about a third of a cold ranking in
 * collections. A buffer grows to the largest field seen and then allocates nothing.
 */
export class TokenBuffer {
  ids: Int32Array;
  length = 0;

  constructor(capacity = 1024) {
    this.ids = new Int32Array(capacity);
  }

  push(id: number): void {
    if (this.length === this.ids.length) {
      const grown = new Int32Array(this.ids.length * 2);
      grown.set(this.ids);
      this.ids = grown;
    }
    this.ids[this.length++] = id;
  }

  /** The ids from `from` on, as a plain array. */
  toArray(from = 0): number[] {
    return Array.from(this.ids.subarray(from, this.length));
  }
}
