import { grownInt32 } from '../text/token-buffer.js';

/**
 * Per matched tool of one sub-query, which query term hit which field: `termIndex * FIELD_COUNT +
 * field` (the best field), for explanations and to tell matched tools from the rest. Matches come tool
 * by tool (term-matches.ts), so a tool's hits are one run of codes, added while it is the last tool.
 * Flat typed arrays rather than a Map of an array per tool, which cost a lookup per match and an
 * array per matched tool (docs/performance.md#a-sub-querys-hits).
 */
export class ToolHits {
  /** Matched tools, in the order of their first hit. */
  readonly #tools: Int32Array;
  #toolCount = 0;
  /** Per place in #tools: where its run of codes starts; the entry after the last is the end. */
  readonly #starts: Int32Array;
  #codes: Int32Array;
  #codeCount = 0;
  /** Per tool of the list: 1 + its place in #tools, or 0 when it has no hits. */
  readonly #place: Int32Array;

  /** `expected`: about how many hits will be added (the matches found); more are room made as they come. */
  constructor(listSize: number, expected: number) {
    this.#place = new Int32Array(listSize);
    this.#tools = new Int32Array(listSize);
    this.#starts = new Int32Array(listSize + 1);
    this.#codes = new Int32Array(Math.max(expected, 16));
  }

  /** How many tools have hits. */
  get size(): number {
    return this.#toolCount;
  }

  /** The `k`-th tool with hits (k < size), in the order of their first hit. */
  tool(k: number): number {
    return this.#tools[k]!;
  }

  has(tool: number): boolean {
    return this.#place[tool]! > 0;
  }

  /** Adds a hit of `tool`: a tool's hits must all come before the next tool's. */
  add(tool: number, code: number): void {
    if (this.#place[tool] === 0) this.#open(tool);
    else if (this.#tools[this.#toolCount - 1] !== tool) throw new Error(`hits of tool ${tool} are not in one run`);
    if (this.#codeCount === this.#codes.length) this.#codes = grownInt32(this.#codes, this.#codeCount + 1);
    this.#codes[this.#codeCount++] = code;
    this.#starts[this.#toolCount] = this.#codeCount;
  }

  /** The codes of `tool`'s hits (a view, empty when it has none). */
  of(tool: number): Int32Array {
    const place = this.#place[tool]!;
    if (place === 0) return NONE;
    return this.#codes.subarray(this.#starts[place - 1]!, this.#starts[place]!);
  }

  /** Keeps only the hits of the last tool added that `keep` accepts; with none left, the tool has no hits. */
  keepLast(tool: number, keep: (code: number) => boolean): void {
    const place = this.#place[tool]!;
    if (place === 0 || place !== this.#toolCount) return;
    let kept = this.#starts[place - 1]!;
    for (let i = kept; i < this.#codeCount; i += 1) if (keep(this.#codes[i]!)) this.#codes[kept++] = this.#codes[i]!;
    this.#codeCount = kept;
    if (kept > this.#starts[place - 1]!) {
      this.#starts[place] = kept;
      return;
    }
    this.#place[tool] = 0;
    this.#toolCount -= 1;
  }

  #open(tool: number): void {
    this.#tools[this.#toolCount] = tool;
    this.#starts[this.#toolCount] = this.#codeCount;
    this.#toolCount += 1;
    this.#place[tool] = this.#toolCount;
  }
}

const NONE = new Int32Array(0);
