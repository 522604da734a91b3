/**
 * A copy of `array` with room for at least `minLength` numbers (and at least twice its length, so
 * that growing one number at a time stays cheap), the new room filled with `fill`.
 */
export function grownInt32(array: Int32Array, minLength: number, fill = 0): Int32Array<ArrayBuffer> {
  const grown = new Int32Array(Math.max(minLength, array.length * 2));
  if (fill !== 0) grown.fill(fill, array.length);
  grown.set(array);
  return grown;
}

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
    if (this.length === this.ids.length) this.ids = grownInt32(this.ids, this.length + 1);
    this.ids[this.length++] = id;
  }

  /** The ids from `from` on, as a plain array. */
  toArray(from = 0): number[] {
    const array = new Array<number>(this.length - from);
    for (let i = from; i < this.length; i += 1) array[i - from] = this.ids[i]!;
    return array;
  }
}
