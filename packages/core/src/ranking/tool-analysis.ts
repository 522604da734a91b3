import { vocabularyEpoch, vocabularySize } from '../text/stem.js';
import { grownInt32, TokenBuffer } from '../text/token-buffer.js';
import { tokenizeInto } from '../text/tokenize.js';
import { FIELD_INDEX } from './fields.js';
import { nameHash, sameName } from './name-key.js';
import type { ToolContent } from './tool-content.js';

/**
 * What ranking needs to know about one tool; computed once per distinct tool content and cached.
 * Its numbers sit in one Int32Array shared by the tools analysed together (see analyzeContents): at
 * `at`, the FIELD_COUNT token counts per field (FIELDS order); then the vocabulary ids (stem.ts) of
 * its `termCount` distinct terms; then `pairCount` pairs (term index × 8 + field, count), fields
 * ascending per term. One typed array per list, rather than a few JS arrays per tool: cached analyses
 * are long-lived, and numbers outside the JS heap are never copied or scanned by the garbage collector
 * (copying a new list's analyses out of the young generation was a large share of a cold ranking).
 */
export interface ToolAnalysis {
  readonly data: Int32Array;
  readonly at: number;
  readonly termCount: number;
  readonly pairCount: number;
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

// Scratch space for counting, reused across tools so that analysing one allocates only its result:
// slotOf[termId] is the term's position in the tool being analysed (or -1); fieldCounts[slot] counts
// it in the current field; touched lists the slots the current field has counted; termIds lists the
// tool's distinct term ids by slot; counted holds the finished fields' (slot × 8 + field, count) pairs.
const fieldTokens = new TokenBuffer();
const termIds = new TokenBuffer(256);
const touched = new TokenBuffer(256);
const counted = new TokenBuffer(1024);
let slotOf = new Int32Array(4096).fill(-1);
let fieldCounts = new Int32Array(1024);
function growSlots(id: number): void {
  slotOf = grownInt32(slotOf, Math.max(id + 1, vocabularySize()), -1);
}

/** Counts the tokens of `text` into the current field; new terms get the next slot in `termIds`. */
function countText(text: string): number {
  if (!text) return 0;
  fieldTokens.length = 0;
  tokenizeInto(text.length > MAX_FIELD_CHARS ? text.slice(0, MAX_FIELD_CHARS) : text, fieldTokens);
  const { ids: tokens, length: count } = fieldTokens;
  for (let k = 0; k < count; k += 1) {
    const id = tokens[k]!;
    if (id >= slotOf.length) growSlots(id);
    let at = slotOf[id]!;
    if (at < 0) {
      at = termIds.length;
      slotOf[id] = at;
      termIds.push(id);
      if (at >= fieldCounts.length) fieldCounts = grownInt32(fieldCounts, at + 1);
    }
    if (fieldCounts[at] === 0) touched.push(at);
    fieldCounts[at]! += 1;
  }
  return count;
}

/** Moves the current field's counts into `counted` and resets them for the next field. */
function endField(field: number): void {
  const slots = touched.ids;
  for (let i = 0; i < touched.length; i += 1) {
    const at = slots[i]!;
    counted.push(at * 8 + field);
    counted.push(fieldCounts[at]!);
    fieldCounts[at] = 0;
  }
  touched.length = 0;
}

// The numbers of the analyses being made, before they are copied into their shared Int32Array.
const batchNumbers = new TokenBuffer(1 << 16);

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
  termIds.length = 0;
  counted.length = 0;
  // Fields in FIELD_INDEX order, so that pairs come out with fields ascending.
  const nameLength = countText(toolName);
  endField(FIELD_INDEX.name);
  const titleLength = countText(title);
  endField(FIELD_INDEX.title);
  let serverLength = countText(serverName);
  // The server id (`serverId:` in the key) often says more than a display name ("word-document-server").
  const colon = toolKey.indexOf(':');
  const serverId = colon >= 0 ? toolKey.slice(0, colon) : '';
  if (!sameName(serverId, serverName)) serverLength += countText(serverId);
  endField(FIELD_INDEX.server);
  const descriptionLength = countText(description);
  endField(FIELD_INDEX.description);
  const paramsLength = countText(paramNames);
  endField(FIELD_INDEX.params);
  const paramTextLength = countText(paramHelps);
  endField(FIELD_INDEX.paramText);
  let tagsLength = 0;
  if (tags) for (const tag of tags.split('\u0002')) tagsLength += countText(tag);
  endField(FIELD_INDEX.tags);

  const at = batchNumbers.length;
  // In FIELDS order (fields.ts).
  batchNumbers.push(nameLength);
  batchNumbers.push(titleLength);
  batchNumbers.push(serverLength);
  batchNumbers.push(descriptionLength);
  batchNumbers.push(paramsLength);
  batchNumbers.push(paramTextLength);
  batchNumbers.push(tagsLength);
  for (let i = 0; i < termIds.length; i += 1) {
    const id = termIds.ids[i]!;
    batchNumbers.push(id);
    slotOf[id] = -1;
  }
  for (let i = 0; i < counted.length; i += 1) batchNumbers.push(counted.ids[i]!);
  return {
    data: NO_DATA,
    at,
    termCount: termIds.length,
    pairCount: counted.length / 2,
    epoch: vocabularyEpoch(),
    server: serverId || serverName,
    toolName,
    nameHash: nameHash(toolName),
    toolKey,
    keyHash: nameHash(toolKey),
  };
}
