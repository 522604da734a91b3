import type { ToolInfo } from '../schemas.js';
import { detachString } from '../text/detach.js';

/**
 * The exact text analysis reads from a tool: its key, names, title, description (cut to
 * `maxDescriptionChars`), tags (joined by U+0002), parameter names and parameter help texts (each
 * space-separated). Analysis reads only these, so equal contents mean equal analyses.
 */
export type ToolContent = readonly [
  toolKey: string,
  toolName: string,
  serverName: string,
  title: string,
  description: string,
  tags: string,
  paramNames: string,
  paramHelps: string,
];

/**
 * Everything a ToolContent is made from, as read from the tool, before any joining: the head below,
 * then each string tag, then per parameter: its name, its description (cut to MAX_PARAM_TEXT), the
 * number of its string enum values (-1: no enum) and each value. The counts make the layout
 * unambiguous, and a content is made from the record alone: equal records, equal contents. The rank
 * cache compares a tool's record with the cached one, which spares a tool seen before the joining (and
 * its garbage) that making its content would cost. (Cutting allocates only for the rare text that is
 * longer than its bound.) A flat array rather than an object: a tool seen before is read into one
 * reused array and compared element by element, with nothing allocated.
 */
export type ToolRecord = readonly [
  maxDescriptionChars: number,
  toolKey: string,
  toolName: string,
  serverName: string,
  title: string,
  description: string,
  tagCount: number,
  ...tagsThenParameters: (string | number)[],
];

// Where the head's entries sit in a record.
const MAX_DESCRIPTION_CHARS = 0;
const TOOL_KEY = 1;
const TOOL_NAME = 2;
const SERVER_NAME = 3;
const TITLE = 4;
const DESCRIPTION = 5;
const TAG_COUNT = 6;
const TAGS = 7;

// Bounds on what one tool can cost, whatever a router sends: a hostile schema with thousands of
// properties must not make ranking slow.
const MAX_PARAMS = 64;
const MAX_PARAM_DEPTH = 3;
const MAX_PARAM_TEXT = 300;
const MAX_ENUM_VALUES = 20;
/**
 * Tags read per tool. Tags, parameter names and enum values are cut to MAX_PARAM_TEXT each too: all of
 * them are copied into cached records and tokenized into the shared vocabulary, so none may be as long
 * as the body allows (5 MB); real ones are words.
 */
const MAX_TAGS = 64;
/** Descriptions are cut to this length for ranking unless a caller says otherwise (the service's MAX_DESCRIPTION_CHARS default). */
export const DEFAULT_MAX_DESCRIPTION_CHARS = 2_000;

const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The tool key a record was read from. */
export function recordKey(record: ToolRecord): string {
  return record[TOOL_KEY];
}

/**
 * Reads tools into records and makes contents from records, reusing its arrays from tool to tool: once
 * they have grown to the largest tool, reading allocates nothing. The rank cache owns one (a tool
 * seen before is read, compared with its cached record, and never kept); ranking without a cache
 * makes one per list. What `read` read stays until the next `read`.
 */
export class ToolReader {
  // The record being read: filled by index and never shortened, so that its storage is kept
  // (`length = 0` would drop it). `#length` says how much of it is the current tool's.
  readonly #reading: Array<string | number> = [];
  #length = 0;
  #paramCount = 0;
  // The keys of a schema object the parameter walk reads, from #findKeys.
  readonly #found: { description: unknown; enum: unknown; properties: unknown; items: unknown } = {
    description: undefined,
    enum: undefined,
    properties: undefined,
    items: undefined,
  };
  // The parameter names and help texts of the content being made, joined at the end: join makes one
  // flat string, where appending piece by piece made a rope that every later read (the tokenizer) had
  // to flatten first. Filled by index and cut with `length = count`, which keeps their storage.
  readonly #paramNames: string[] = [];
  readonly #paramHelps: string[] = [];

  /** Reads `tool` (see ToolRecord); then compare it with `matches`, or keep it with `take`. */
  read(tool: ToolInfo, maxDescriptionChars = DEFAULT_MAX_DESCRIPTION_CHARS): void {
    const reading = this.#reading;
    reading[MAX_DESCRIPTION_CHARS] = maxDescriptionChars;
    reading[TOOL_KEY] = str(tool.toolKey);
    reading[TOOL_NAME] = str(tool.toolName);
    reading[SERVER_NAME] = str(tool.serverName);
    reading[TITLE] = str(tool.title);
    const description = str(tool.description);
    reading[DESCRIPTION] =
      description.length > maxDescriptionChars ? description.slice(0, Math.max(0, maxDescriptionChars)) : description;
    this.#length = TAGS;
    let tagCount = 0;
    const tags = tool.tags as unknown;
    if (Array.isArray(tags)) {
      for (const tag of tags) {
        if (tagCount >= MAX_TAGS) break;
        if (typeof tag !== 'string') continue;
        reading[this.#length++] = cut(tag, MAX_PARAM_TEXT);
        tagCount += 1;
      }
    }
    reading[TAG_COUNT] = tagCount;
    this.#paramCount = 0;
    this.#readParams(tool.inputSchema, 0);
  }

  /** The toolKey of the tool read last. */
  get key(): string {
    return this.#reading[TOOL_KEY] as string;
  }

  /** Whether `record` is exactly what was read last. */
  matches(record: ToolRecord): boolean {
    const length = this.#length;
    if (record.length !== length) return false;
    const reading = this.#reading;
    for (let i = 0; i < length; i += 1) if (record[i] !== reading[i]) return false;
    return true;
  }

  /** A copy of what was read last, to keep. */
  take(): ToolRecord {
    const record = this.#reading.slice(0, this.#length);
    // A kept record must not keep the request's texts alive through the cut ones (see detachString).
    for (let i = 0; i < record.length; i += 1) {
      const item = record[i];
      if (typeof item === 'string') record[i] = detachString(item);
    }
    return record as unknown as ToolRecord;
  }

  /** The content analysis reads from `tool`. */
  content(tool: ToolInfo, maxDescriptionChars = DEFAULT_MAX_DESCRIPTION_CHARS): ToolContent {
    this.read(tool, maxDescriptionChars);
    return this.#contentOf(this.#reading, this.#length);
  }

  /** The content made from a record kept before. */
  contentOf(record: ToolRecord): ToolContent {
    return this.#contentOf(record, record.length);
  }

  /** The content of a record's first `length` entries (the reading is longer than the tool read last). */
  #contentOf(record: readonly (string | number)[], length: number): ToolContent {
    const tagCount = record[TAG_COUNT] as number;
    let at = TAGS;
    const tags = tagCount === 0 ? '' : record.slice(at, at + tagCount).join('\u0002');
    at += tagCount;
    const paramNames = this.#paramNames;
    const paramHelps = this.#paramHelps;
    let nameCount = 0;
    let helpCount = 0;
    // Per parameter: name, help text, enum value count (-1: no enum), the values.
    while (at < length) {
      paramNames[nameCount++] = record[at++] as string;
      let help = record[at++] as string;
      const valueCount = record[at++] as number;
      // An enum adds its string values, each after a space (one space when it has none).
      if (valueCount >= 0) {
        let text = ' ';
        for (let k = 0; k < valueCount; k += 1)
          text = k === 0 ? text + (record[at++] as string) : `${text} ${record[at++] as string}`;
        help += text;
      }
      if (help) paramHelps[helpCount++] = help;
    }
    return [
      record[TOOL_KEY] as string,
      record[TOOL_NAME] as string,
      record[SERVER_NAME] as string,
      record[TITLE] as string,
      record[DESCRIPTION] as string,
      tags,
      joinFirst(paramNames, nameCount),
      joinFirst(paramHelps, helpCount),
    ];
  }

  /** The parameters of a schema: its `properties`, then those of its `items`; nested ones too, at most MAX_PARAMS. */
  #readParams(schema: unknown, depth: number): void {
    if (depth > MAX_PARAM_DEPTH || typeof schema !== 'object' || schema === null) return;
    this.#findKeys(schema);
    const items = this.#found.items;
    this.#readProperties(this.#found.properties, depth);
    if (items !== undefined) this.#readParams(items, depth + 1);
  }

  /** Each property's name, description and string enum values, then its own nested parameters. */
  #readProperties(properties: unknown, depth: number): void {
    if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) return;
    const reading = this.#reading;
    const found = this.#found;
    for (const name in properties) {
      if (this.#paramCount >= MAX_PARAMS) return;
      if (!Object.hasOwn(properties, name)) continue;
      this.#paramCount += 1;
      reading[this.#length++] = cut(name, MAX_PARAM_TEXT);
      const property = (properties as Record<string, unknown>)[name];
      if (typeof property !== 'object' || property === null) {
        reading[this.#length++] = '';
        reading[this.#length++] = -1;
        continue;
      }
      this.#findKeys(property);
      const { enum: values, properties: nested, items } = found;
      const description = str(found.description);
      reading[this.#length++] = cut(description, MAX_PARAM_TEXT);
      if (Array.isArray(values)) this.#readEnum(values);
      else reading[this.#length++] = -1;
      // What #readParams(property, depth + 1) reads, from the keys already found.
      if (depth + 1 > MAX_PARAM_DEPTH) continue;
      this.#readProperties(nested, depth + 1);
      if (items !== undefined) this.#readParams(items, depth + 2);
    }
  }

  /**
   * Finds `description`, `enum`, `properties` and `items` in one pass over an object's keys. Schema
   * objects come in many shapes, and reading a key by name from an object of a shape seen among many
   * others is a slow lookup, slowest for the keys most objects lack (most parameters have no `enum`,
   * `properties` or `items`); enumerating keys is not. (Enumeration skips non-enumerable properties,
   * which parsed JSON never has.)
   */
  #findKeys(object: object): void {
    const found = this.#found;
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
  #readEnum(values: unknown[]): void {
    const reading = this.#reading;
    const countAt = this.#length++;
    let count = 0;
    for (let i = 0; i < values.length && i < MAX_ENUM_VALUES; i += 1) {
      const value = values[i];
      if (typeof value !== 'string') continue;
      reading[this.#length++] = cut(value, MAX_PARAM_TEXT);
      count += 1;
    }
    reading[countAt] = count;
  }
}

/** The collected texts, space-separated. Most tools have none or one: those need no join. */
function joinFirst(texts: string[], count: number): string {
  if (count === 0) return '';
  if (count === 1) return texts[0]!;
  texts.length = count;
  return texts.join(' ');
}

/** The text, or its first `max` characters. */
function cut(text: string, max: number): string {
  return text.length > max ? text.slice(0, max) : text;
}
