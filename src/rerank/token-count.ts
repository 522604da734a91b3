// Prompt size is measured in tokens of OpenAI's o200k_base encoding (gpt-tokenizer, pure JS). Other
// model families (Llama, Qwen, Mistral) split text differently, typically within ±20% for
// English; the default budget leaves room for that below common 8k–32k context windows.
// Counting (≈0.05 ms per tool line) and sanitising are the costly parts of candidate selection, and
// routers send the same tool list with every request, so line parts and counts are memoised per project.
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

/** Tokens a chat message adds beyond its content (role and separators), as OpenAI documents it. */
export const MESSAGE_OVERHEAD_TOKENS = 4;

export function countTextTokens(text: string): number {
  return countTokens(text);
}

/** A candidate line's request-independent parts and their token count. */
export interface LineParts {
  head: string;
  tail: string;
  tokens: number;
}

/**
 * Memo of candidate-line parts per tool content (sanitising and counting cost far more than a
 * lookup). Kept per project: nothing about one project's tools is visible to another.
 */
export class LinePartsCache {
  // A Map in insertion order is the LRU: a hit is re-inserted at the end, the first key is the oldest.
  // (Cheaper per lookup than lru-cache for this hot path of a few hundred lookups per request.)
  readonly #entries = new Map<string, LineParts>();
  readonly #maxTools: number;

  constructor(maxTools = 20_000) {
    this.#maxTools = maxTools;
  }

  get(key: string, build: () => { head: string; tail: string }): LineParts {
    let entry = this.#entries.get(key);
    if (entry !== undefined) {
      this.#entries.delete(key);
    } else {
      const { head, tail } = build();
      entry = { head, tail, tokens: countTokens(`${head} | ${tail}`) };
      if (this.#entries.size >= this.#maxTools) this.#entries.delete(this.#entries.keys().next().value!);
    }
    this.#entries.set(key, entry);
    return entry;
  }
}
