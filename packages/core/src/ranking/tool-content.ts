import type { ToolInfo } from '../schemas.js';
import { detachString } from '../text/detach.js';

/**
 * The exact text analysis reads from a tool: toolKey, toolName, serverName, title, description (cut to
 * `maxDescriptionChars`), tags (joined by U+0002), parameter names, parameter help texts (each
 * space-separated). Analysis reads only these, so equal contents mean equal analyses.
 */
export type ToolContent = readonly [string, string, string, string, string, string, string, string];

/**
 * Everything a ToolContent is made from, as read from the tool, before any joining:
 *   maxDescriptionChars, toolKey, toolName, serverName, title, description (cut to
 *   maxDescriptionChars), the number of string tags, each tag,
 *   then per parameter: its name, its description (cut to MAX_PARAM_TEXT), the number of its string
 *   enum values (-1: no enum), each value.
 * The counts make the layout unambiguous, and contentOf makes the content from the record alone: equal
 * records, equal contents. The rank cache compares a tool's record with the cached one, which spares
 * a tool seen before the joining (and its garbage) that making its content would cost. (Cutting
 * allocates only for the rare text that is longer than its bound.)
 */
export type ToolRecord = readonly (string | number)[];

// Bounds on what one tool can cost, whatever a router sends: a hostile schema with thousands of
// properties must not make ranking slow.
const MAX_PARAMS = 64;
const MAX_PARAM_DEPTH = 3;
const MAX_PARAM_TEXT = 300;
const MAX_ENUM_VALUES = 20;
/** Descriptions are cut to this length for ranking unless a caller says otherwise (the service's MAX_DESCRIPTION_CHARS default). */
export const DEFAULT_MAX_DESCRIPTION_CHARS = 2_000;
// Where the tags start in a record.
const TAG_COUNT = 6;

const str = (value: unknown): string => (typeof value === 'string' ? value : '');

// The record being read, reused from tool to tool: filled by index and never shortened, so that its
// storage is kept (`length = 0` would drop it). `readLength` says how much of it is the current tool's.
const reading: Array<string | number> = [];
let readLength = 0;
let paramCount = 0;

/**
 * Reads `tool` into the reusable reading (see ToolRecord); compare it with sameAsRead, or keep it
 * with takeReading. Allocates nothing once the reading has grown to the largest tool.
 */
export function readTool(tool: ToolInfo, maxDescriptionChars = DEFAULT_MAX_DESCRIPTION_CHARS): void {
  reading[0] = maxDescriptionChars;
  reading[1] = str(tool.toolKey);
  reading[2] = str(tool.toolName);
  reading[3] = str(tool.serverName);
  reading[4] = str(tool.title);
  const description = str(tool.description);
  reading[5] = description.length > maxDescriptionChars ? description.slice(0, Math.max(0, maxDescriptionChars)) : description;
  readLength = TAG_COUNT + 1;
  let tagCount = 0;
  const tags = tool.tags as unknown;
  if (Array.isArray(tags)) {
    for (const tag of tags) {
      if (typeof tag !== 'string') continue;
      reading[readLength++] = tag;
      tagCount += 1;
    }
  }
  reading[TAG_COUNT] = tagCount;
  paramCount = 0;
  readParams(tool.inputSchema, 0);
}

/** Whether `record` is exactly what readTool read last. */
export function sameAsRead(record: ToolRecord): boolean {
  if (record.length !== readLength) return false;
  for (let i = 0; i < readLength; i += 1) if (record[i] !== reading[i]) return false;
  return true;
}

/** The toolKey of the tool readTool read last. */
export function keyRead(): string {
  return reading[1] as string;
}

/** A copy of what readTool read last, to keep. */
export function takeReading(): ToolRecord {
  const record = reading.slice(0, readLength);
  // A kept record must not keep the request's texts alive through the cut ones (see detachString).
  for (let i = 0; i < record.length; i += 1) {
    const item = record[i];
    if (typeof item === 'string') record[i] = detachString(item);
  }
  return record;
}

/** The parameters of a schema: its `properties`, then those of its `items`; nested ones too, at most MAX_PARAMS. */
function readParams(schema: unknown, depth: number): void {
  if (depth > MAX_PARAM_DEPTH || typeof schema !== 'object' || schema === null) return;
  findKeys(schema);
  const items = found.items;
  readProperties(found.properties, depth);
  if (items !== undefined) readParams(items, depth + 1);
}

/** Each property's name, description and string enum values, then its own nested parameters. */
function readProperties(properties: unknown, depth: number): void {
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) return;
  for (const name in properties) {
    if (paramCount >= MAX_PARAMS) return;
    if (!Object.hasOwn(properties, name)) continue;
    paramCount += 1;
    reading[readLength++] = name;
    const property = (properties as Record<string, unknown>)[name];
    if (typeof property !== 'object' || property === null) {
      reading[readLength++] = '';
      reading[readLength++] = -1;
      continue;
    }
    findKeys(property);
    const { enum: values, properties: nested, items } = found;
    const description = str(found.description);
    reading[readLength++] = description.length > MAX_PARAM_TEXT ? description.slice(0, MAX_PARAM_TEXT) : description;
    if (Array.isArray(values)) readEnum(values);
    else reading[readLength++] = -1;
    // What readParams(property, depth + 1) reads, from the keys already found.
    if (depth + 1 > MAX_PARAM_DEPTH) continue;
    readProperties(nested, depth + 1);
    if (items !== undefined) readParams(items, depth + 2);
  }
}

// The keys of a schema object readParams reads, from findKeys.
const found: { description: unknown; enum: unknown; properties: unknown; items: unknown } = {
  description: undefined,
  enum: undefined,
  properties: undefined,
  items: undefined,
};

/**
 * Finds `description`, `enum`, `properties` and `items` in one pass over an object's keys. Schema
 * objects come in many shapes, and reading a key by name from an object of a shape seen among many
 * others is a slow lookup, slowest for the keys most objects lack (most parameters have no `enum`,
 * `properties` or `items`); enumerating keys is not. (Enumeration skips non-enumerable properties,
 * which parsed JSON never has.)
 */
function findKeys(object: object): void {
  found.description = undefined;
  found.enum = undefined;
  found.properties = undefined;
  found.items = undefined;
  for (const key in object) {
    if (key === 'description') found.description = (object as Record<string, unknown>)[key];
    else if (key === 'enum') found.enum = (object as Record<string, unknown>)[key];
    else if (key === 'properties') found.properties = (object as Record<string, unknown>)[key];
    else if (key === 'items') found.items = (object as Record<string, unknown>)[key];
  }
}

/** The count, then the values, of the string values among an enum's first MAX_ENUM_VALUES. */
function readEnum(values: unknown[]): void {
  const countAt = readLength++;
  let count = 0;
  for (let i = 0; i < values.length && i < MAX_ENUM_VALUES; i += 1) {
    const value = values[i];
    if (typeof value !== 'string') continue;
    reading[readLength++] = value;
    count += 1;
  }
  reading[countAt] = count;
}

/** The content analysis reads from a tool (see ToolContent). */
export function toolContent(tool: ToolInfo, maxDescriptionChars = DEFAULT_MAX_DESCRIPTION_CHARS): ToolContent {
  readTool(tool, maxDescriptionChars);
  return contentOf(reading, readLength);
}

// The parameter names and help texts of the content being made, reused from tool to tool and joined
// at the end: join makes one flat string, where appending piece by piece made a rope that every later
// read (the tokenizer) had to flatten first. Filled by index and cut with `length = count`, which
// keeps the arrays' storage.
const paramNames: string[] = [];
const paramHelps: string[] = [];

/** The content made from a record (its first `length` entries). */
export function contentOf(record: ToolRecord, length = record.length): ToolContent {
  const tagCount = record[TAG_COUNT] as number;
  let at = TAG_COUNT + 1;
  const tags = tagCount === 0 ? '' : record.slice(at, at + tagCount).join('\u0002');
  at += tagCount;
  let nameCount = 0;
  let helpCount = 0;
  while (at < length) {
    paramNames[nameCount++] = record[at++] as string;
    let help = record[at++] as string;
    const valueCount = record[at++] as number;
    // An enum adds its string values, each after a space (one space when it has none).
    if (valueCount >= 0) {
      let text = ' ';
      for (let k = 0; k < valueCount; k += 1) text = k === 0 ? text + (record[at++] as string) : `${text} ${record[at++] as string}`;
      help += text;
    }
    if (help) paramHelps[helpCount++] = help;
  }
  return [
    record[1] as string,
    record[2] as string,
    record[3] as string,
    record[4] as string,
    record[5] as string,
    tags,
    joinFirst(paramNames, nameCount),
    joinFirst(paramHelps, helpCount),
  ];
}

/** The collected texts, space-separated. Most tools have none or one: those need no join. */
function joinFirst(texts: string[], count: number): string {
  if (count === 0) return '';
  if (count === 1) return texts[0]!;
  texts.length = count;
  return texts.join(' ');
}
