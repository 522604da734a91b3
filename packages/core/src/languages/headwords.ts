/**
 * A dictionary's lines ("headword\tgloss|gloss"), sorted by headword, searched without building a map
 * of entries: the lines starting with one character form a range, and the headwords that start with a
 * longer form a range within it, which narrows as the form grows (a longest match stops at the first
 * length no headword begins with). Split from the data module's string on first use.
 */
export class Headwords {
  private readonly lines: string[];
  // Per first character (UTF-16 unit) of a headword: the range of its lines, [start, end).
  private readonly firstCharRanges = new Map<number, [number, number]>();

  constructor(entries: string) {
    this.lines = entries.split('\n');
    for (let k = 0; k < this.lines.length; k += 1) {
      const code = this.lines[k]!.charCodeAt(0);
      const range = this.firstCharRanges.get(code);
      if (range === undefined) this.firstCharRanges.set(code, [k, k + 1]);
      else range[1] = k + 1;
    }
  }

  /**
   * The longest headword that `text` has at `start`, at most `maxLength` UTF-16 units long, with its
   * glosses; undefined when none. `read` may gloss a form that is no headword, or refuse one that is
   * (Japanese: an inflected stem, a lone kana): it is asked about every form up to the first length no
   * headword begins with, that one included.
   */
  longestAt(
    text: string,
    start: number,
    maxLength: number,
    read: (form: string, glosses: string | undefined) => string | undefined = (_, glosses) => glosses,
  ): { end: number; glosses: string } | undefined {
    let [low, high] = this.firstCharRanges.get(text.charCodeAt(start)) ?? [0, 0];
    let best: { end: number; glosses: string } | undefined;
    const last = Math.min(text.length, start + maxLength);
    for (let end = start + 1; end <= last; end += 1) {
      const form = text.slice(start, end);
      low = this.lowerBound(form, low, high);
      high = this.lowerBound(`${form}\uffff`, low, high);
      const exact =
        low < high && this.lines[low]!.startsWith(`${form}\t`) ? this.lines[low]!.slice(form.length + 1) : undefined;
      const glosses = read(form, exact);
      if (glosses !== undefined) best = { end, glosses };
      if (low >= high) break;
    }
    return best;
  }

  /** The glosses of the headword `form` ("会議" → "meeting|conference|..."), or undefined. */
  get(form: string): string | undefined {
    const [low, high] = this.firstCharRanges.get(form.charCodeAt(0)) ?? [0, 0];
    const at = this.lowerBound(`${form}\t`, low, high);
    return at < high && this.lines[at]!.startsWith(`${form}\t`) ? this.lines[at]!.slice(form.length + 1) : undefined;
  }

  /** The first index in [low, high) whose line is not below `key`. */
  private lowerBound(key: string, low: number, high: number): number {
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.lines[middle]! < key) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
