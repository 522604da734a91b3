import type { SearchFilter, ToolInfo } from '../schemas.js';
import { compileToolNamePatterns, type ToolNameMatcher } from './tool-name-patterns.js';
import type { RequestProblem } from './tool-list.js';

/**
 * The request's `filter`, applied to the tool list before ranking: it only ever narrows the list.
 * Annotation filters follow the MCP specification's defaults for absent hints (`readOnlyHint`
 * false, `destructiveHint` true); annotations are untrusted hints from third-party servers.
 */
export type ToolFilter = (tool: ToolInfo) => boolean;

type FilterCompilation = { ok: true; keep: ToolFilter | undefined } | { ok: false; problems: RequestProblem[] };

/**
 * The filter as one check. `namesPassed`, when given, holds the tools that passed `filter.tools`
 * already (runToolNameRules, run elsewhere: the service runs it off the event loop); without it the
 * rules are compiled here and run per tool, unbounded (prepareSearch bounds them).
 */
export function compileToolFilter(
  filter: SearchFilter | undefined,
  namesPassed?: ReadonlySet<ToolInfo>,
): FilterCompilation {
  if (filter === undefined) return { ok: true, keep: undefined };
  const checks: ToolFilter[] = [];
  if (filter.servers !== undefined) {
    const servers = new Set(filter.servers);
    checks.push((tool) => servers.has(serverIdOf(tool)) || servers.has(tool.serverName));
  }
  if (filter.excludeServers !== undefined) {
    const servers = new Set(filter.excludeServers);
    checks.push((tool) => !servers.has(serverIdOf(tool)) && !servers.has(tool.serverName));
  }
  if (filter.tools !== undefined && filter.tools.length > 0 && namesPassed !== undefined) {
    checks.push((tool) => namesPassed.has(tool));
  } else if (filter.tools !== undefined && filter.tools.length > 0) {
    const compiled = compileToolNamePatterns(filter.tools);
    if (!compiled.ok) return compiled;
    const matcher: ToolNameMatcher = compiled.matcher;
    checks.push((tool) => matcher.matches(tool.toolName, tool.toolKey));
  }
  if (filter.tags !== undefined) {
    const tags = tagSet(filter.tags);
    checks.push((tool) => matchingTags(tool, tags) > 0);
  }
  if (filter.readOnly === true) checks.push((tool) => hint(tool, 'readOnlyHint') === true);
  if (filter.excludeDestructive === true) {
    checks.push((tool) => hint(tool, 'readOnlyHint') === true || hint(tool, 'destructiveHint') === false);
  }
  if (checks.length === 0) return { ok: true, keep: undefined };
  return { ok: true, keep: (tool) => checks.every((check) => check(tool)) };
}

const hint = (tool: ToolInfo, name: string): unknown =>
  (tool.annotations as Record<string, unknown> | undefined)?.[name];

/** The server id of a tool: its `toolKey` up to the first `:` (the whole key when it has none). */
function serverIdOf(tool: ToolInfo): string {
  const colon = tool.toolKey.indexOf(':');
  return colon < 0 ? tool.toolKey : tool.toolKey.slice(0, colon);
}

/** Tags compare case-insensitively, ignoring surrounding space. */
export function tagSet(tags: readonly string[]): Set<string> {
  return new Set(tags.map(normaliseTag));
}

export function matchingTags(tool: ToolInfo, tags: ReadonlySet<string>): number {
  if (tool.tags === undefined) return 0;
  let count = 0;
  for (const tag of new Set(tool.tags.map(normaliseTag))) if (tags.has(tag)) count += 1;
  return count;
}

const normaliseTag = (tag: string) => tag.trim().toLowerCase();
