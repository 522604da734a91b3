import type { Vocabulary } from '../text/vocabulary.js';
import { TokenBuffer } from '../text/token-buffer.js';
import { tokenizeInto } from '../text/tokenize.js';
import { nameHash, sameName } from './name-key.js';
import type { ToolContent } from './tool-reader.js';

/**
 * What ranking needs to know about one tool; computed once per distinct tool content and cached: its
 * tokens as vocabulary ids (vocabulary.ts), field after field (FIELDS order), and how many tokens each field
 * has. A token stream rather than an index of the tool's terms: scoring a query scans the streams for
 * the query's few terms (see term-matches.ts), which costs less than counting every term of every
 * tool into an index up front. The numbers of the tools analysed together sit in two Int32Arrays
 * shared by them (see analyzeContents), tokens in one and field lengths in the other, in the order of
 * the tools: a new list analysed at once is its own token stream, which scoring reads as it is.
 * Numbers in typed arrays rather than JS arrays: cached analyses are long-lived, and numbers outside
 * the JS heap are never copied or scanned by the garbage collector.
 */
export interface ToolAnalysis {
  /** The tool's tokens are `tokens[tokenStart .. tokenStart + tokenCount)`. */
  readonly tokens: Int32Array;
  readonly tokenStart: number;
  readonly tokenCount: number;
  /** The tool's field lengths are `fieldLengths[lengthsAt .. lengthsAt + FIELD_COUNT)`. */
  readonly fieldLengths: Int32Array;
  readonly lengthsAt: number;
  /** The vocabulary epoch the ids belong to: an analysis from an older one must be made again. */
  readonly epoch: number;
  /** The server the tool belongs to (the `serverId` part of its key, else its server name). */
  readonly server: string;
  /** The tool's own names, for the exact-name hit: `toolName` and `toolKey` with their nameHash. */
  readonly toolName: string;
  readonly nameHash: number;
  readonly toolKey: string;
  readonly keyHash: number;
}

// A field longer than this is cut before tokenizing: a hostile megabyte of text must not make ranking slow.
const MAX_FIELD_CHARS = 4_000;

// The tokens and field lengths of the analyses being made, before they are copied into their shared
// Int32Arrays.
const batchTokens = new TokenBuffer(1 << 16);
const batchLengths = new TokenBuffer(1 << 12);

/** Appends the tokens of `text` to the batch; returns how many there were. */
function addText(text: string, vocabulary: Vocabulary): number {
  if (!text) return 0;
  const before = batchTokens.length;
  tokenizeInto(text.length > MAX_FIELD_CHARS ? text.slice(0, MAX_FIELD_CHARS) : text, batchTokens, vocabulary);
  return batchTokens.length - before;
}

/**
 * Analyses tool contents (see tool-reader.ts) into term ids of `vocabulary`. The ids hold until the
 * vocabulary is next reset: a caller analysing a list calls `vocabulary.resetIfFull()` once before the
 * list, not between its tools.
 */
export function analyzeContents(contents: readonly ToolContent[], vocabulary: Vocabulary): ToolAnalysis[] {
  batchTokens.length = 0;
  batchLengths.length = 0;
  const made = contents.map((content) => analyzeInto(content, vocabulary));
  const tokens = batchTokens.ids.slice(0, batchTokens.length);
  const fieldLengths = batchLengths.ids.slice(0, batchLengths.length);
  for (const analysis of made) {
    analysis.tokens = tokens;
    analysis.fieldLengths = fieldLengths;
  }
  return made;
}

const NO_DATA = new Int32Array(0);

/** Analyses one tool into the batch; its arrays are set once the batch is done. */
function analyzeInto(
  content: ToolContent,
  vocabulary: Vocabulary,
): ToolAnalysis & { tokens: Int32Array; fieldLengths: Int32Array } {
  const [toolKey, toolName, serverName, title, description, tags, paramNames, paramHelps] = content;
  const tokenStart = batchTokens.length;
  const lengthsAt = batchLengths.length;
  // Fields in FIELDS order: the stream is read back field by field with these lengths.
  batchLengths.push(addText(toolName, vocabulary));
  batchLengths.push(addText(title, vocabulary));
  let serverLength = addText(serverName, vocabulary);
  // The server id (`serverId:` in the key) often says more than a display name ("word-document-server").
  const colon = toolKey.indexOf(':');
  const serverId = colon >= 0 ? toolKey.slice(0, colon) : '';
  if (!sameName(serverId, serverName)) serverLength += addText(serverId, vocabulary);
  batchLengths.push(serverLength);
  batchLengths.push(addText(description, vocabulary));
  batchLengths.push(addText(paramNames, vocabulary));
  batchLengths.push(addText(paramHelps, vocabulary));
  let tagsLength = 0;
  if (tags) for (const tag of tags.split('\u0002')) tagsLength += addText(tag, vocabulary);
  batchLengths.push(tagsLength);
  return {
    tokens: NO_DATA,
    tokenStart,
    tokenCount: batchTokens.length - tokenStart,
    fieldLengths: NO_DATA,
    lengthsAt,
    epoch: vocabulary.epoch,
    server: serverId || serverName,
    toolName,
    nameHash: nameHash(toolName),
    toolKey,
    keyHash: nameHash(toolKey),
  };
}
