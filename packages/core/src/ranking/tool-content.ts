import type { ToolInfo } from '../schemas.js';

/**
 * The exact text analysis reads from a tool: toolKey, toolName, serverName, title, description (cut to
 * `maxDescriptionChars`), tags (joined by U+0002), parameter names, parameter help texts (each
 * space-separated). Analysis reads only these, so equal contents mean equal analyses.
 */
export type ToolContent = readonly [string, string, string, string, string, string, string, string];

// Bounds on what one tool can cost, whatever a router sends: a hostile schema with thousands of
// properties must not make ranking slow.
const MAX_PARAMS = 64;
const MAX_PARAM_DEPTH = 3;
const MAX_PARAM_TEXT = 300;
/** Descriptions are cut to this length for ranking unless a caller says otherwise (the service's MAX_DESCRIPTION_CHARS default). */
export const DEFAULT_MAX_DESCRIPTION_CHARS = 2_000;

const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The content analysis reads from a tool (see ToolContent). */
export function toolContent(tool: ToolInfo, maxDescriptionChars = DEFAULT_MAX_DESCRIPTION_CHARS): ToolContent {
  const description = str(tool.description);
  nameCount = 0;
  helpCount = 0;
  collectParams(tool.inputSchema, 0);
  return [
    str(tool.toolKey),
    str(tool.toolName),
    str(tool.serverName),
    str(tool.title),
    description.length > maxDescriptionChars ? description.slice(0, Math.max(0, maxDescriptionChars)) : description,
    tagText(tool.tags),
    joinFirst(paramNames, nameCount),
    joinFirst(paramHelps, helpCount),
  ];
}

const tagText = (tags: unknown): string => (Array.isArray(tags) ? tags.filter((t) => typeof t === 'string').join('\u0002') : '');

// The parameter names and help texts `collect` finds, reused from tool to tool. Joined at the end:
// join makes one flat string, where appending piece by piece made a rope that every later read (the
// cache's content comparison, the tokenizer) had to flatten first. Filled by index and cut with
// `length = count`, which keeps the arrays' storage; `length = 0` drops it, and re-growing it for
// every tool was a fifth of the garbage a cold ranking made.
const paramNames: string[] = [];
const paramHelps: string[] = [];
let nameCount = 0;
let helpCount = 0;

/** The collected texts, space-separated. Most tools have none or one: those need no join. */
function joinFirst(texts: string[], count: number): string {
  if (count === 0) return '';
  if (count === 1) return texts[0]!;
  texts.length = count;
  return texts.join(' ');
}

/** A parameter's string enum values (of its first 20), each after a space. */
function enumText(values: unknown[]): string {
  let text = ' ';
  let first = true;
  for (let i = 0; i < values.length && i < 20; i += 1) {
    const value = values[i];
    if (typeof value !== 'string') continue;
    text = first ? text + value : `${text} ${value}`;
    first = false;
  }
  return text;
}

/** Collects parameter names and help texts, from nested `properties`/`items` too, at most MAX_PARAMS. */
function collectParams(schema: unknown, depth: number): void {
  if (depth > MAX_PARAM_DEPTH || typeof schema !== 'object' || schema === null) return;
  const { properties, items } = schema as { properties?: unknown; items?: unknown };
  if (typeof properties === 'object' && properties !== null && !Array.isArray(properties)) {
    for (const name in properties) {
      if (nameCount >= MAX_PARAMS) return;
      if (!Object.hasOwn(properties, name)) continue;
      const property = (properties as Record<string, unknown>)[name];
      let help = '';
      if (typeof property === 'object' && property !== null) {
        const { description, enum: values } = property as { description?: unknown; enum?: unknown };
        help = str(description).slice(0, MAX_PARAM_TEXT);
        if (Array.isArray(values)) help += enumText(values);
      }
      paramNames[nameCount++] = name;
      if (help) paramHelps[helpCount++] = help;
      collectParams(property, depth + 1);
    }
  }
  if (items !== undefined) collectParams(items, depth + 1);
}
