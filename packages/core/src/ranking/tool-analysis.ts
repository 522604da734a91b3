import { vocabularyEpoch } from '../text/stem.js';
import { grownInt32, TokenBuffer } from '../text/token-buffer.js';
import { tokenizeInto } from '../text/tokenize.js';
import { FIELD_COUNT, FIELD_INDEX } from './fields.js';
import { nameHash, sameName } from './name-key.js';
import type { ToolContent } from './tool-content.js';

/**
 * What ranking needs to know about one tool; computed once per distinct tool content and cached.
 * Its numbers sit in one Int32Array shared by the tools analysed together (see analyzeContents): at
 * `at`, the FIELD_COUNT token counts per field (FIELDS order); then the tool's tokens as vocabulary ids
 * (stem.ts), field after field, `tokenCount` in all. A token stream rather than an index of the tool's
 * terms: scoring a query scans the streams for the query's few terms (see score-query.ts), which costs
 * less than counting every term of every tool into an index up front, and a cold request pays for that
 * counting once for each of its tools, a warm one never. One typed array per list, rather than arrays
 * per tool: cached analyses are long-lived, and numbers outside the JS heap are never copied or scanned
 * by the garbage collector.
 */
export interface ToolAnalysis {
  readonly data: Int32Array;
  readonly at: number;
  readonly tokenCount: number;
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

// The numbers of the analyses being made, before they are copied into their shared Int32Array.
const batchNumbers = new TokenBuffer(1 << 16);

/** Appends the tokens of `text` to the batch; returns how many there were. */
function addText(text: string): number {
  if (!text) return 0;
  const before = batchNumbers.length;
  tokenizeInto(text.length > MAX_FIELD_CHARS ? text.slice(0, MAX_FIELD_CHARS) : text, batchNumbers);
  return batchNumbers.length - before;
}

/**
 * Analyses tool contents (see tool-content.ts). Term ids hold until the vocabulary is next reset: a
 * caller analysing a list calls `resetVocabularyIfFull()` once before the list, not between its tools.
 */
export function analyzeContents(contents: readonly ToolContent[]): ToolAnalysis[] {
  batchNumbers.length = 0;
  const made = contents.map(analyzeInto);
  const data = batchNumbers.ids.slice(0, batchNumbers.length);
  for (const analysis of made) analysis.data = data;
  return made;
}

const NO_DATA = new Int32Array(0);

/** Analyses one tool, appending its numbers to `batchNumbers`; `data` is set once the batch is done. */
function analyzeInto(content: ToolContent): ToolAnalysis & { data: Int32Array } {
  const [toolKey, toolName, serverName, title, description, tags, paramNames, paramHelps] = content;
  const at = batchNumbers.length;
  // Room for the field lengths, filled in once the fields are read.
  batchNumbers.length += FIELD_COUNT;
  if (batchNumbers.length > batchNumbers.ids.length) batchNumbers.ids = grownInt32(batchNumbers.ids, batchNumbers.length);
  const lengths = fieldLengths;
  // Fields in FIELDS order: the stream is read back field by field with these lengths.
  lengths[FIELD_INDEX.name] = addText(toolName);
  lengths[FIELD_INDEX.title] = addText(title);
  let serverLength = addText(serverName);
  // The server id (`serverId:` in the key) often says more than a display name ("word-document-server").
  const colon = toolKey.indexOf(':');
  const serverId = colon >= 0 ? toolKey.slice(0, colon) : '';
  if (!sameName(serverId, serverName)) serverLength += addText(serverId);
  lengths[FIELD_INDEX.server] = serverLength;
  lengths[FIELD_INDEX.description] = addText(description);
  lengths[FIELD_INDEX.params] = addText(paramNames);
  lengths[FIELD_INDEX.paramText] = addText(paramHelps);
  let tagsLength = 0;
  if (tags) for (const tag of tags.split('\u0002')) tagsLength += addText(tag);
  lengths[FIELD_INDEX.tags] = tagsLength;
  batchNumbers.ids.set(lengths, at);
  return {
    data: NO_DATA,
    at,
    tokenCount: batchNumbers.length - at - FIELD_COUNT,
    epoch: vocabularyEpoch(),
    server: serverId || serverName,
    toolName,
    nameHash: nameHash(toolName),
    toolKey,
    keyHash: nameHash(toolKey),
  };
}

const fieldLengths = new Int32Array(FIELD_COUNT);
