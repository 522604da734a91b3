// Prompt size is measured in tokens of OpenAI's o200k_base encoding (gpt-tokenizer, pure JS). Other
// model families (Llama, Qwen, Mistral) split text differently, typically within ±20% for
// English; the default budget leaves room for that below common 8k–32k context windows.
// Counting is the costly part of candidate selection (≈0.05 ms per tool line), and routers send
// the same tool list with every request, so counts of candidate lines are memoised per project.
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { LRUCache } from 'lru-cache';

/** Tokens a chat message adds beyond its content (role and separators), as OpenAI documents it. */
export const MESSAGE_OVERHEAD_TOKENS = 4;

export function countTextTokens(text: string): number {
  return countTokens(text);
}

export class LineTokenCounter {
  readonly #counts: LRUCache<string, number>;

  constructor(maxLines = 20_000) {
    this.#counts = new LRUCache({ max: maxLines });
  }

  /** Tokens of `line` plus its newline. */
  count(line: string): number {
    let tokens = this.#counts.get(line);
    if (tokens === undefined) {
      tokens = countTokens(line) + 1;
      this.#counts.set(line, tokens);
    }
    return tokens;
  }
}
