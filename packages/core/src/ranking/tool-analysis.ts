import type { ToolInfo } from '../schemas.js';
import { resetVocabularyIfFull, vocabularyEpoch, vocabularySize } from '../text/stem.js';
import { TokenBuffer } from '../text/token-buffer.js';
import { tokenizeInto } from '../text/tokenize.js';
import { FIELD_COUNT as FIELDS_TOTAL, FIELD_INDEX } from './fields.js';

// A local copy: read in the innermost loops, where a cross-module binding can cost a call.
const FIELD_COUNT = FIELDS_TOTAL;

/** What ranking needs to know about one tool; computed once per distinct tool content and cached. */
export interface ToolAnalysis {
  /** Distinct terms of the tool, as vocabulary ids (stem.ts). */
  readonly termIds: readonly number[];
  /** The vocabulary epoch the ids belong to: an analysis from an older one must be made again. */
  readonly epoch: number;
  /**
   * Term frequencies per field, sparse: flat pairs (term index × 8 + field, count), fields ascending.
   * Most terms occur in one or two of the seven fields, so this is a fraction of a dense
   * terms × fields table, and a plain array of small integers is cheaper to allocate than a typed array.
   * Pairs rather than triples: analyses are cached, and a third less memory per tool is a third less
   * for the garbage collector to copy while a new list is analysed.
   */
  readonly occurrences: readonly number[];
  /** Token count per field. */
  readonly lengths: readonly number[];
  /** The server the tool belongs to (the `serverId` part of its key, else its server name). */
  readonly server: string;
  /** Normalised spellings of the tool's own name (`toolName`, `toolKey`), for the exact-name hit. */
  readonly nameKeys: readonly string[];
}

// Bounds on what one tool can cost, whatever a router sends: a hostile schema with thousands of
// properties or megabytes of description must not make ranking slow.
const MAX_PARAMS = 64;
const MAX_PARAM_DEPTH = 3;
const MAX_PARAM_TEXT = 300;
const MAX_FIELD_CHARS = 4_000;
export const DEFAULT_MAX_DESCRIPTION_CHARS = 2_000;

const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/**
 * The exact text analysis reads from a tool: toolKey, toolName, serverName, title, description (cut to
 * `maxDescriptionChars`), tags (joined by U+0002), parameter names, parameter help texts. Analysis
 * reads only these, so equal contents mean equal analyses.
 */
export type ToolContent = readonly [string, string, string, string, string, string, string, string];

/** The content analysis reads from a tool (see ToolContent). */
export function toolContent(tool: ToolInfo, maxDescriptionChars = DEFAULT_MAX_DESCRIPTION_CHARS): ToolContent {
  const description = str(tool.description);
  const tags = Array.isArray(tool.tags) ? tool.tags.filter((t) => typeof t === 'string').join('\u0002') : '';
  paramNames.length = 0;
  paramHelps.length = 0;
  collectParams(tool.inputSchema, 0);
  return [
    str(tool.toolKey),
    str(tool.toolName),
    str(tool.serverName),
    str(tool.title),
    description.length > maxDescriptionChars ? description.slice(0, Math.max(0, maxDescriptionChars)) : description,
    tags,
    paramNames.join(' '),
    paramHelps.join(' '),
  ];
}

const NOT_NAME_CHARS = /[^\p{L}\p{N}]+/gu;

// The parameter names and help texts collectParams finds, reused from tool to tool. Joined at the
// end: join makes one flat string, where appending piece by piece made a rope that every later read
// (the cache's content comparison, the tokenizer) had to flatten first.
const paramNames: string[] = [];
const paramHelps: string[] = [];

/** Collects parameter names and help texts, from nested `properties`/`items` too. */
function collectParams(schema: unknown, depth: number): void {
  if (depth > MAX_PARAM_DEPTH || typeof schema !== 'object' || schema === null) return;
  const { properties, items } = schema as { properties?: unknown; items?: unknown };
  if (typeof properties === 'object' && properties !== null && !Array.isArray(properties)) {
    for (const name in properties) {
      if (paramNames.length >= MAX_PARAMS) return;
      if (!Object.hasOwn(properties, name)) continue;
      const property = (properties as Record<string, unknown>)[name];
      let help = '';
      if (typeof property === 'object' && property !== null) {
        const { description, enum: values } = property as { description?: unknown; enum?: unknown };
        help = str(description).slice(0, MAX_PARAM_TEXT);
        if (Array.isArray(values)) help += ` ${values.slice(0, 20).filter((v) => typeof v === 'string').join(' ')}`;
      }
      paramNames.push(name);
      if (help) paramHelps.push(help);
      collectParams(property, depth + 1);
    }
  }
  if (items !== undefined) collectParams(items, depth + 1);
}

/** Normalised identifier: lowercase letters and digits only ("create_pull_request" = "createPullRequest"). */
export function normalizeName(name: string): string {
  // Called several times per analysed tool: a char scan keeps the common ASCII case off the regex engine.
  const lower = name.toLowerCase();
  let out = '';
  let from = 0;
  for (let i = 0; i < lower.length; i += 1) {
    const code = lower.charCodeAt(i);
    if ((code >= 97 && code <= 122) || (code >= 48 && code <= 57)) continue;
    if (code >= 128) return lower.replace(NOT_NAME_CHARS, '');
    if (i > from) out += lower.slice(from, i);
    from = i + 1;
  }
  return from === 0 ? lower : out + lower.slice(from);
}

// Scratch space for counting, reused across tools so that analysing one allocates only its result:
// slotOf[termId] is the term's position in the tool being analysed (or -1); fieldCounts[slot] counts
// it in the current field; touched lists the slots the current field has counted; termIds lists the
// tool's distinct term ids by slot; counted holds the finished fields' (slot, field, count) triples.
const fieldTokens = new TokenBuffer();
const termIds = new TokenBuffer(256);
const touched = new TokenBuffer(256);
const counted = new TokenBuffer(1024);
let slotOf = new Int32Array(4096).fill(-1);
let fieldCounts = new Int32Array(1024);
function growSlots(id: number): void {
  const grown = new Int32Array(Math.max(id + 1, vocabularySize(), slotOf.length * 2)).fill(-1);
  grown.set(slotOf);
  slotOf = grown;
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
      if (at >= fieldCounts.length) {
        const grown = new Int32Array(fieldCounts.length * 2);
        grown.set(fieldCounts);
        fieldCounts = grown;
      }
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

/**
 * Analyses a tool's content (see toolContent). Its term ids hold until the vocabulary is next reset: a
 * caller analysing a list calls `resetVocabularyIfFull()` once before the list, not between its tools.
 */
export function analyzeContent(content: ToolContent): ToolAnalysis {
  const [toolKey, toolName, serverName, title, description, tags, paramNames, paramHelps] = content;
  termIds.length = 0;
  counted.length = 0;
  // Fields in FIELD_INDEX order, so that occurrences come out with fields ascending.
  const nameLength = countText(toolName);
  endField(FIELD_INDEX.name);
  const titleLength = countText(title);
  endField(FIELD_INDEX.title);
  let serverLength = countText(serverName);
  // The server id (`serverId:` in the key) often says more than a display name ("word-document-server").
  const colon = toolKey.indexOf(':');
  const serverId = colon >= 0 ? toolKey.slice(0, colon) : '';
  if (serverId !== serverName && normalizeName(serverId) !== normalizeName(serverName)) serverLength += countText(serverId);
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
  // An array literal in FIELDS order (fields.ts): cheaper to allocate than a filled `new Array`.
  const lengths = [nameLength, titleLength, serverLength, descriptionLength, paramsLength, paramTextLength, tagsLength];

  const ids = new Array<number>(termIds.length);
  for (let i = 0; i < termIds.length; i += 1) {
    const id = termIds.ids[i]!;
    ids[i] = id;
    slotOf[id] = -1;
  }
  // Exactly sized, filled by index: one allocation per analysis.
  const occurrences = new Array<number>(counted.length);
  for (let i = 0; i < counted.length; i += 1) occurrences[i] = counted.ids[i]!;
  const nameKey = normalizeName(toolName);
  const keyKey = normalizeName(toolKey);
  const nameKeys = nameKey === keyKey || keyKey === '' ? (nameKey === '' ? [] : [nameKey]) : nameKey === '' ? [keyKey] : [nameKey, keyKey];
  return { termIds: ids, epoch: vocabularyEpoch(), occurrences, lengths, nameKeys, server: serverId || serverName };
}

export function analyzeTool(tool: ToolInfo, maxDescriptionChars?: number): ToolAnalysis {
  resetVocabularyIfFull();
  return analyzeContent(toolContent(tool, maxDescriptionChars));
}
