// Prompt size is measured in tokens of OpenAI's o200k_base encoding (gpt-tokenizer, pure JS). Other
// model families (Llama, Qwen, Mistral) split text differently, typically within ±20% for
// English; the default budget leaves room for that below common 8k–32k context windows.
// Counting and sanitising are the costly parts of candidate selection, and routers send the same tool
// list with every request, so line parts and counts are memoised per project.
import { createRequire } from 'node:module';
import { detachString } from '@catalog-search/core';
import { boundedKey, stringBytes, type ProjectCache } from '../memory/exports.js';

type CountTokens = (text: string) => number;
let countTokens: CountTokens | undefined;

/**
 * o200k's tables are loaded on first use, not at start: building them is a large part of the image's
 * cold start, in time and memory (docs/self-hosting.md#image-size-and-cold-start), which a deployment
 * without an LLM (the default) never needs. With an LLM, createReranker loads
 * them at start so that no search pays for it. Synchronous (`require`), as counting is.
 */
export function loadTokenizer(): CountTokens {
  countTokens ??= (createRequire(import.meta.url)('gpt-tokenizer/encoding/o200k_base') as { countTokens: CountTokens })
    .countTokens;
  return countTokens;
}

/** Tokens a chat message adds beyond its content (role and separators), as OpenAI documents it. */
export const MESSAGE_OVERHEAD_TOKENS = 4;

/**
 * o200k's byte-pair merging is quadratic in the length of one pre-token (a run of letters, of
 * punctuation or of whitespace): a long run of newlines took seconds
 * (docs/operations.md#a-model-that-misbehaves). So a run of one character class is cut every `MAX_RUN`
 * characters and each piece counted on its own: work is linear in the text, the count is exact for text
 * without such runs, and over-counts a long run by at most a token per cut.
 */
const MAX_RUN = 256;

/** Tokens of `text` (o200k), in time linear in its length whatever it holds. */
export function countTextTokens(text: string): number {
  const countTokens = loadTokenizer();
  if (text.length <= MAX_RUN) return countTokens(text);
  let total = 0;
  let from = 0;
  let runClass = -1;
  let runStart = 0;
  for (let at = 0; at < text.length; at += 1) {
    const kind = charClass(text.charCodeAt(at));
    if (kind !== runClass || kind === DIGIT) {
      runClass = kind;
      runStart = at;
    } else if (at - runStart + 1 >= MAX_RUN) {
      total += countTokens(text.slice(from, at + 1));
      from = at + 1;
      runClass = -1;
    }
  }
  return from < text.length ? total + countTokens(text.slice(from)) : total;
}

// Classes of characters that o200k keeps together in one pre-token. Digits never form long ones
// (they are split in threes); anything beyond ASCII counts with letters, a harmless simplification
// (a cut only adds at most a token).
const SPACE = 0;
const LETTER = 1;
const PUNCTUATION = 2;
const DIGIT = 3;

function charClass(code: number): number {
  if (code <= 32 || code === 0x85 || code === 0xa0 || code === 0x2028 || code === 0x2029) return SPACE;
  if (code >= 48 && code <= 57) return DIGIT;
  if ((code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code >= 128) return LETTER;
  return PUNCTUATION;
}

/** A candidate line's request-independent parts and their token count. */
export interface LineParts {
  head: string;
  tail: string;
  tokens: number;
}

/**
 * Memo of candidate-line parts per tool content (sanitising and counting cost far more than a
 * lookup), one project's view of the service's 'candidate-lines' cache (src/memory): nothing about one
 * project's tools is visible to another, and entries count in bytes against the one cache budget.
 * Keys are bounded: a key holding a tool's whole text (a 180 KB description) is hashed.
 */
export class LinePartsCache {
  constructor(
    private readonly cache: ProjectCache<LineParts>,
    private readonly projectId: string,
  ) {}

  get(key: string, build: () => { head: string; tail: string }): LineParts {
    const bounded = boundedKey(key);
    let entry = this.cache.get(this.projectId, bounded);
    if (entry === undefined) {
      // Own copies: the parts are cut from the request's tool text, which they would otherwise keep alive.
      const { head, tail } = build();
      entry = { head: detachString(head), tail: detachString(tail), tokens: countTextTokens(`${head} | ${tail}`) };
      this.cache.set(this.projectId, bounded, entry);
    }
    return entry;
  }
}

/** Bytes a line's parts hold in the cache. */
export function linePartsBytes(parts: LineParts): number {
  return stringBytes(parts.head) + stringBytes(parts.tail) + 48;
}
