import type { ToolInfo } from '../schemas.js';
import { hash53 } from '../text/hash.js';
import { tokenize } from '../text/tokenize.js';
import { FIELD_COUNT, FIELD_INDEX } from './fields.js';

/** What ranking needs to know about one tool; computed once per distinct tool content and cached. */
export interface ToolAnalysis {
  /** Term -> its frequency in each field (indexed like FIELDS). */
  readonly terms: ReadonlyMap<string, readonly number[]>;
  /** Token count per field. */
  readonly lengths: readonly number[];
  /** Normalised spellings of the tool's own name (`toolName`, `toolKey`), for the exact-name hit. */
  readonly nameKeys: readonly string[];
}

// Bounds on what one tool can cost, whatever a router sends: a hostile schema with thousands of
// properties or megabytes of description must not make ranking slow.
const MAX_PARAMS = 64;
const MAX_PARAM_DEPTH = 3;
const MAX_FIELD_CHARS = 4_000;
const DEFAULT_MAX_DESCRIPTION_CHARS = 2_000;

/** Content key of a tool: equal for tools that would analyse the same, different otherwise. */
export function toolContentKey(tool: ToolInfo, maxDescriptionChars = DEFAULT_MAX_DESCRIPTION_CHARS): string {
  const text = [
    tool.toolKey,
    tool.toolName,
    tool.serverName,
    tool.title ?? '',
    tool.description ?? '',
    tool.tags?.join('\u0002') ?? '',
    tool.inputSchema === undefined ? '' : safeStringify(tool.inputSchema),
  ].join('\u0001');
  return `${hash53(text).toString(36)}.${text.length.toString(36)}.${maxDescriptionChars}`;
}

function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return ''; // cyclic or BigInt: such a schema contributes no parameter words either
  }
}

/** Normalised identifier: lowercase letters and digits only ("create_pull_request" = "createPullRequest"). */
export function normalizeName(name: string): string {
  return name.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
}

export function analyzeTool(tool: ToolInfo, maxDescriptionChars = DEFAULT_MAX_DESCRIPTION_CHARS): ToolAnalysis {
  const terms = new Map<string, number[]>();
  const lengths = new Array<number>(FIELD_COUNT).fill(0);
  const add = (field: number, text: string | undefined): void => {
    if (!text) return;
    const tokens = tokenize(text.length > MAX_FIELD_CHARS ? text.slice(0, MAX_FIELD_CHARS) : text);
    lengths[field]! += tokens.length;
    for (const term of tokens) {
      let tf = terms.get(term);
      if (tf === undefined) {
        tf = new Array<number>(FIELD_COUNT).fill(0);
        terms.set(term, tf);
      }
      tf[field]! += 1;
    }
  };

  add(FIELD_INDEX.name, tool.toolName);
  add(FIELD_INDEX.title, tool.title);
  const serverId = tool.toolKey.split(':', 1)[0] ?? '';
  add(FIELD_INDEX.server, tool.serverName);
  if (normalizeName(serverId) !== normalizeName(tool.serverName)) add(FIELD_INDEX.server, serverId);
  add(FIELD_INDEX.description, tool.description?.slice(0, Math.max(0, maxDescriptionChars)));
  if (tool.tags) for (const tag of tool.tags) if (typeof tag === 'string') add(FIELD_INDEX.tags, tag);
  if (tool.inputSchema) {
    const params = { names: [] as string[], texts: [] as string[] };
    collectParams(tool.inputSchema, params, 0);
    add(FIELD_INDEX.params, params.names.join(' '));
    add(FIELD_INDEX.paramText, params.texts.join(' '));
  }

  const nameKeys = [...new Set([normalizeName(tool.toolName), normalizeName(tool.toolKey)])].filter(Boolean);
  return { terms, lengths, nameKeys };
}

/** Parameter names and their descriptions/enum values, from `properties` (nested objects and arrays too). */
function collectParams(schema: unknown, into: { names: string[]; texts: string[] }, depth: number): void {
  if (depth > MAX_PARAM_DEPTH || typeof schema !== 'object' || schema === null) return;
  const { properties, items } = schema as { properties?: unknown; items?: unknown };
  if (typeof properties === 'object' && properties !== null) {
    for (const [name, property] of Object.entries(properties)) {
      if (into.names.length >= MAX_PARAMS) return;
      into.names.push(name);
      if (typeof property !== 'object' || property === null) continue;
      const { description, enum: values } = property as { description?: unknown; enum?: unknown };
      if (typeof description === 'string') into.texts.push(description.slice(0, 300));
      if (Array.isArray(values)) into.texts.push(values.slice(0, 20).filter((v) => typeof v === 'string').join(' '));
      collectParams(property, into, depth + 1);
    }
  }
  if (items !== undefined) collectParams(items, into, depth + 1);
}
