import type { ToolInfo } from '../schemas.js';
import { resetVocabularyIfFull, termOf, vocabularySize } from '../text/stem.js';
import { tokenizeIds } from '../text/tokenize.js';
import { FIELD_COUNT as FIELDS_TOTAL, FIELD_INDEX } from './fields.js';

// A local copy: read in the innermost loops, where a cross-module binding can cost a call.
const FIELD_COUNT = FIELDS_TOTAL;

/** What ranking needs to know about one tool; computed once per distinct tool content and cached. */
export interface ToolAnalysis {
  /** Distinct terms of the tool. */
  readonly terms: readonly string[];
  /** Term frequencies, flat: `tf[termIndex * FIELD_COUNT + field]` (fields indexed like FIELDS). */
  readonly tf: Uint16Array;
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
const SEP = '\u0001';

const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/**
 * The exact text analysis reads from a tool, as one string: it is the cache key. Keying by the content
 * itself (not a JS hash of it) is both collision-free and fast, because the engine hashes and compares
 * strings natively; and since it holds exactly what analysis reads, equal keys mean equal analyses.
 */
export function toolContentKey(tool: ToolInfo, maxDescriptionChars = DEFAULT_MAX_DESCRIPTION_CHARS): string {
  const description = str(tool.description);
  const tags = Array.isArray(tool.tags) ? tool.tags.filter((t) => typeof t === 'string').join('\u0002') : '';
  return (
    str(tool.toolKey) + SEP + str(tool.toolName) + SEP + str(tool.serverName) + SEP + str(tool.title) + SEP +
    (description.length > maxDescriptionChars ? description.slice(0, Math.max(0, maxDescriptionChars)) : description) +
    SEP + tags + SEP + paramText(tool.inputSchema)
  );
}

const NOT_NAME_CHARS = /[^\p{L}\p{N}]+/gu;
const ASCII_NAME = /^[A-Za-z0-9_\-.:/ @]*$/;

/** Parameter names, then (after SEP) their help texts, from nested `properties`/`items` too. */
function paramText(schema: unknown): string {
  const names: string[] = [];
  const helps: string[] = [];
  collectParams(schema, names, helps, 0);
  return `${names.join(' ')}${SEP}${helps.join(' ')}`;
}

function collectParams(schema: unknown, out: string[], helps: string[], depth: number): void {
  if (depth > MAX_PARAM_DEPTH || typeof schema !== 'object' || schema === null) return;
  const { properties, items } = schema as { properties?: unknown; items?: unknown };
  if (typeof properties === 'object' && properties !== null && !Array.isArray(properties)) {
    for (const name in properties) {
      if (out.length >= MAX_PARAMS) return;
      if (!Object.hasOwn(properties, name)) continue;
      const property = (properties as Record<string, unknown>)[name];
      let help = '';
      if (typeof property === 'object' && property !== null) {
        const { description, enum: values } = property as { description?: unknown; enum?: unknown };
        help = str(description).slice(0, MAX_PARAM_TEXT);
        if (Array.isArray(values)) help += ` ${values.slice(0, 20).filter((v) => typeof v === 'string').join(' ')}`;
      }
      out.push(name);
      if (help) helps.push(help);
      collectParams(property, out, helps, depth + 1);
    }
  }
  if (items !== undefined) collectParams(items, out, helps, depth + 1);
}

/** Normalised identifier: lowercase letters and digits only ("create_pull_request" = "createPullRequest"). */
export function normalizeName(name: string): string {
  if (ASCII_NAME.test(name)) return name.toLowerCase().replace(/[^a-z0-9]+/g, '');
  return name.toLowerCase().replace(NOT_NAME_CHARS, '');
}

// Scratch space for counting terms by id: slotOf[id] is the term's position in the tool being
// analysed, or -1. Reset after each tool, grown with the vocabulary.
const scratchTokens: number[] = [];
let slotOf = new Int32Array(4096).fill(-1);
function growSlots(id: number): void {
  const grown = new Int32Array(Math.max(id + 1, vocabularySize(), slotOf.length * 2)).fill(-1);
  grown.set(slotOf);
  slotOf = grown;
}

/** Analyses a tool from its content key (see toolContentKey), so the key and the analysis cannot disagree. */
export function analyzeContent(key: string): ToolAnalysis {
  const [toolKey = '', toolName = '', serverName = '', title = '', description = '', tags = '', paramNames = '', paramHelps = ''] =
    key.split(SEP);
  resetVocabularyIfFull();
  const ids: number[] = [];
  const counts: number[] = [];
  const lengths = new Array<number>(FIELD_COUNT).fill(0);
  const add = (field: number, text: string): void => {
    if (!text) return;
    const tokens = tokenizeIds(text.length > MAX_FIELD_CHARS ? text.slice(0, MAX_FIELD_CHARS) : text, scratchTokens);
    lengths[field]! += tokens.length;
    for (let k = 0; k < tokens.length; k += 1) {
      const id = tokens[k]!;
      if (id >= slotOf.length) growSlots(id);
      let at = slotOf[id]!;
      if (at < 0) {
        at = ids.length;
        slotOf[id] = at;
        ids.push(id);
        for (let f = 0; f < FIELD_COUNT; f += 1) counts.push(0);
      }
      counts[at * FIELD_COUNT + field]! += 1;
    }
    tokens.length = 0;
  };
  add(FIELD_INDEX.name, toolName);
  add(FIELD_INDEX.title, title);
  add(FIELD_INDEX.server, serverName);
  // The server id (`serverId:` in the key) often says more than a display name ("word-document-server").
  const serverId = toolKey.includes(':') ? (toolKey.split(':', 1)[0] ?? '') : '';
  if (normalizeName(serverId) !== normalizeName(serverName)) add(FIELD_INDEX.server, serverId);
  add(FIELD_INDEX.description, description);
  for (const tag of tags.split('\u0002')) add(FIELD_INDEX.tags, tag);
  add(FIELD_INDEX.params, paramNames);
  add(FIELD_INDEX.paramText, paramHelps);
  const nameKeys = [...new Set([normalizeName(toolName), normalizeName(toolKey)])].filter(Boolean);
  const terms = ids.map(termOf);
  for (const id of ids) slotOf[id] = -1;
  const tf = new Uint16Array(counts.length);
  for (let i = 0; i < counts.length; i += 1) tf[i] = Math.min(counts[i]!, 65_535);
  return { terms, tf, lengths, nameKeys, server: serverId || serverName };
}

export function analyzeTool(tool: ToolInfo, maxDescriptionChars?: number): ToolAnalysis {
  return analyzeContent(toolContentKey(tool, maxDescriptionChars));
}
