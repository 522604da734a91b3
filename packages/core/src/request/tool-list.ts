// Strict envelope, lenient tools. Routers build the tool list from whatever third-party MCP servers
// return, so each tool is checked on its own: one that cannot be used is skipped and reported (it
// never fails the search), and fields that are merely empty, `null` or of the wrong type are
// treated as absent. The service and the client's fallback both read tool lists through here.
import { MAX_NAME_CHARS, MAX_SKIPPED_LISTED, type SkippedTool, type ToolInfo } from '../schemas.js';
import { inspectNesting, MAX_NESTING_DEPTH, withoutPoisonKeys } from './nesting-depth.js';
import { sameJson } from '../tool-sets/same-json.js';
import { exceedsCodePoints } from '../text/text-length.js';

/** A problem with the request's structure (not with one tool): the service answers 400 naming `field`. */
export interface RequestProblem {
  field: string;
  message: string;
}

export interface ToolList {
  /** The usable tools, cleaned: only the ToolInfo fields, in request order. */
  tools: ToolInfo[];
  /** The first MAX_SKIPPED_LISTED skipped tools. */
  skipped: SkippedTool[];
  skippedCount: number;
}

/**
 * Problems a refusal lists at most (the service's 400 lists as many field errors): naming the first
 * few is enough, and listing all of a big body's made answers of any size.
 */
export const MAX_LISTED_PROBLEMS = 20;

export type ToolListReading = { ok: true; list: ToolList } | { ok: false; problems: RequestProblem[] };

/** Reads `tools` (ToolInfo objects) or `servers` (MCP tools grouped by server): exactly one must be given. */
export function readToolList(body: { tools?: unknown; servers?: unknown }): ToolListReading {
  const { tools, servers } = body;
  if (tools !== undefined && servers !== undefined) {
    return fail('/servers', 'must not be sent with tools: send one of tools or servers');
  }
  const reader = new ToolListReader();
  if (servers !== undefined) {
    if (!Array.isArray(servers)) return fail('/servers', 'must be an array');
    const problems: RequestProblem[] = [];
    for (const [s, server] of servers.entries()) {
      const problem = serverProblem(server, s);
      if (problem) problems.push(problem);
      else if (problems.length === 0) reader.readServer(server as GroupedServer, s);
      // The request is refused: naming the first few is enough. Listing all of a 4 MB body's 2,000,000
      // bad servers made an answer 30 times the body (docs/performance.md#a-refused-lists-problems).
      if (problems.length === MAX_LISTED_PROBLEMS) break;
    }
    return problems.length > 0 ? { ok: false, problems } : { ok: true, list: reader.list };
  }
  if (tools === undefined) return fail('/tools', 'is required (or send servers)');
  if (!Array.isArray(tools)) return fail('/tools', 'must be an array');
  tools.forEach((tool: unknown, index) => reader.readTool(tool, `/tools/${index}`, undefined));
  return { ok: true, list: reader.list };
}

/** How many tools a `tools` or `servers` body carries, before any is read (for MAX_TOOLS). */
export function countTools(body: { tools?: unknown; servers?: unknown }): number {
  if (Array.isArray(body.tools)) return body.tools.length;
  if (!Array.isArray(body.servers)) return 0;
  let count = 0;
  for (const server of body.servers) {
    const tools = isRecord(server) ? server.tools : undefined;
    if (Array.isArray(tools)) count += tools.length;
  }
  return count;
}

interface GroupedServer {
  serverId: string;
  serverName?: string | null;
  tools: unknown[];
}

function serverProblem(server: unknown, s: number): RequestProblem | undefined {
  if (!isRecord(server)) return { field: `/servers/${s}`, message: 'must be an object' };
  const { serverId, serverName, tools } = server;
  if (typeof serverId !== 'string' || serverId === '')
    return { field: `/servers/${s}/serverId`, message: 'must be a non-empty string' };
  if (exceedsCodePoints(serverId, MAX_NAME_CHARS))
    return { field: `/servers/${s}/serverId`, message: `must be at most ${MAX_NAME_CHARS} characters` };
  if (serverName !== undefined && serverName !== null && typeof serverName !== 'string') {
    return { field: `/servers/${s}/serverName`, message: 'must be a string' };
  }
  if (typeof serverName === 'string' && exceedsCodePoints(serverName, MAX_NAME_CHARS)) {
    return { field: `/servers/${s}/serverName`, message: `must be at most ${MAX_NAME_CHARS} characters` };
  }
  if (!Array.isArray(tools)) return { field: `/servers/${s}/tools`, message: 'must be an array' };
  const unknown = Object.keys(server).find((key) => key !== 'serverId' && key !== 'serverName' && key !== 'tools');
  if (unknown !== undefined) return { field: `/servers/${s}/${unknown}`, message: 'is not a known field' };
  return undefined;
}

/**
 * Why a tool whose key an earlier tool has is skipped. The `servers` form joins serverId and name with
 * `:`, so server `a` with tool `b:c` and server `a:b` with tool `c` both make `a:b:c`: two different
 * tools, not a repeat, so the reason names both and how each key was made (it said only "repeats").
 */
function repeatReason(
  pointer: string,
  tool: { serverId: string | undefined; name: string },
  earlier: { index: number; pointer: string; serverId: string | undefined; name: string },
): string {
  const joined = (of: { serverId: string | undefined; name: string }) =>
    `serverId ${JSON.stringify(of.serverId)} + name ${JSON.stringify(of.name)}`;
  if (
    tool.serverId === undefined ||
    earlier.serverId === undefined ||
    (tool.serverId === earlier.serverId && tool.name === earlier.name)
  ) {
    return `${pointer}: repeats the toolKey of tool ${earlier.index}; the first is kept`;
  }
  return (
    `${pointer}: its toolKey (${joined(tool)}) is also that of tool ${earlier.index} (${earlier.pointer}: ${joined(earlier)}), ` +
    'as the servers form joins serverId and name with ":"; the first is kept'
  );
}

class ToolListReader {
  readonly list: ToolList = { tools: [], skipped: [], skippedCount: 0 };
  /** Each kept key: the tool's index, pointer, and how the `servers` form built it. */
  readonly #keys = new Map<string, { index: number; pointer: string; serverId: string | undefined; name: string }>();
  #index = 0;

  readServer(server: GroupedServer, s: number): void {
    const serverName = nonEmptyString(server.serverName) ?? server.serverId;
    server.tools.forEach((tool, t) =>
      this.readTool(tool, `/servers/${s}/tools/${t}`, { serverId: server.serverId, serverName }),
    );
  }

  /** `grouped`: the tool is an MCP Tool of that server (`name`, key `serverId:name`). */
  readTool(raw: unknown, pointer: string, grouped: { serverId: string; serverName: string } | undefined): void {
    const index = this.#index;
    this.#index += 1;
    const outcome = cleanTool(raw, grouped);
    if (typeof outcome === 'object' && 'problem' in outcome) {
      this.#skip(index, outcome.toolKey, `${pointer}${outcome.problem.startsWith(':') ? '' : '/'}${outcome.problem}`);
      return;
    }
    const earlier = this.#keys.get(outcome.toolKey);
    const serverId = grouped?.serverId;
    if (earlier !== undefined) {
      this.#skip(index, outcome.toolKey, repeatReason(pointer, { serverId, name: outcome.toolName }, earlier));
      return;
    }
    this.#keys.set(outcome.toolKey, { index, pointer, serverId, name: outcome.toolName });
    this.list.tools.push(outcome);
  }

  #skip(index: number, toolKey: string | undefined, reason: string): void {
    this.list.skippedCount += 1;
    if (this.list.skipped.length < MAX_SKIPPED_LISTED) {
      this.list.skipped.push(toolKey === undefined ? { index, reason } : { index, toolKey, reason });
    }
  }
}

type Cleaned = ToolInfo | { problem: string; toolKey?: string };

function cleanTool(raw: unknown, grouped: { serverId: string; serverName: string } | undefined): Cleaned {
  if (!isRecord(raw)) return { problem: ': must be an object' };
  const identity = identityOf(raw, grouped);
  if ('problem' in identity) return identity;
  const { toolKey, toolName, serverName } = identity;
  const tool: ToolInfo = { toolKey, toolName, serverName };
  const description = nonEmptyString(raw.description);
  if (description !== undefined) tool.description = description;
  const title = nonEmptyString(raw.title);
  if (title !== undefined && !exceedsCodePoints(title, MAX_NAME_CHARS)) tool.title = title;
  for (const field of ['inputSchema', 'annotations'] as const) {
    const value = raw[field];
    if (!isRecord(value) || isEmpty(value)) continue;
    const nesting = inspectNesting(value, MAX_NESTING_DEPTH);
    if (nesting === 'too_deep') return { problem: `${field}: nests deeper than ${MAX_NESTING_DEPTH} levels`, toolKey };
    tool[field] = nesting === 'poisoned' ? withoutPoisonKeys(value) : value;
  }
  if (Array.isArray(raw.tags)) {
    const tags = raw.tags.filter((tag): tag is string => typeof tag === 'string' && tag !== '');
    if (tags.length > 0) tool.tags = tags;
  }
  return tool;
}

/** A tool's key, name and server name as the reading makes them (the name and server may stand in for the key). */
function identityOf(
  raw: Record<string, unknown>,
  grouped: { serverId: string; serverName: string } | undefined,
): Pick<ToolInfo, 'toolKey' | 'toolName' | 'serverName'> | { problem: string; toolKey?: string } {
  // A flat list may carry MCP Tool objects as they are: `name` stands in for an absent `toolName`.
  const nameField =
    grouped || ((raw.toolName === undefined || raw.toolName === null) && typeof raw.name === 'string')
      ? 'name'
      : 'toolName';
  const toolName = nonEmptyString(raw[nameField]);
  // Named in meta.skipped when the tool has a usable key of its own.
  const sentKey = grouped ? {} : keyOf(raw.toolKey);
  if (toolName === undefined) return { problem: `${nameField}: must be a non-empty string`, ...sentKey };
  if (exceedsCodePoints(toolName, MAX_NAME_CHARS))
    return { problem: `${nameField}: must be at most ${MAX_NAME_CHARS} characters`, ...sentKey };

  let toolKey: string;
  let serverName: string;
  if (grouped) {
    toolKey = `${grouped.serverId}:${toolName}`;
    serverName = grouped.serverName;
  } else {
    if (raw.serverName !== undefined && raw.serverName !== null && typeof raw.serverName !== 'string') {
      return { problem: 'serverName: must be a string', ...keyOf(raw.toolKey) };
    }
    if (raw.toolKey !== undefined && raw.toolKey !== null && typeof raw.toolKey !== 'string')
      return { problem: 'toolKey: must be a string' };
    serverName = (raw.serverName as string | undefined | null) ?? '';
    toolKey = nonEmptyString(raw.toolKey) ?? (serverName === '' ? toolName : `${serverName}:${toolName}`);
  }
  if (exceedsCodePoints(toolKey, MAX_NAME_CHARS))
    return { problem: `toolKey: must be at most ${MAX_NAME_CHARS} characters` };
  if (exceedsCodePoints(serverName, MAX_NAME_CHARS))
    return { problem: `serverName: must be at most ${MAX_NAME_CHARS} characters`, toolKey };
  return { toolKey, toolName, serverName };
}

/**
 * Whether reading `raw` as a tool of a `tools` list gives `tool`, a tool this reading gave: the same
 * key, name and server name as the reading makes them (sent, or worked out from the MCP `name` and the
 * server), each of `tool`'s other fields in `raw` with the same JSON, and every other field of `raw` one
 * the reading leaves out (a field it does not know, or a description, title, schema, annotations or tags
 * that is empty, `null` or of the wrong type). It never says yes wrongly; it may say no for a tool the
 * reading would change otherwise (a title cut, tags filtered), and the caller then reads it. Lets a
 * service that holds the list a project sent last skip reading the same list sent again.
 */
export function readsAs(raw: unknown, tool: ToolInfo): boolean {
  if (!isRecord(raw)) return false;
  const identity = identityOf(raw, undefined);
  if ('problem' in identity) return false;
  if (
    identity.toolKey !== tool.toolKey ||
    identity.toolName !== tool.toolName ||
    identity.serverName !== tool.serverName
  )
    return false;
  const fields = tool as unknown as Record<string, unknown>;
  let matched = 0;
  for (const key in raw) {
    if (!Object.hasOwn(raw, key)) return false;
    if (IDENTITY_FIELDS.has(key)) continue;
    if (Object.hasOwn(fields, key)) {
      if (!sameJson(raw[key], fields[key])) return false;
      matched += 1;
    } else if (!leftOut(key, raw[key])) return false;
  }
  for (const key in fields) if (Object.hasOwn(fields, key) && !IDENTITY_FIELDS.has(key)) matched -= 1;
  return matched === 0;
}

/** The fields `identityOf` reads (`name` only when `toolName` is absent, else the reading ignores it). */
const IDENTITY_FIELDS = new Set(['toolKey', 'toolName', 'name', 'serverName']);

/** Whether the reading leaves out `raw[key]`, a field other than the identity (cleanTool's rules). */
function leftOut(key: string, value: unknown): boolean {
  switch (key) {
    case 'description':
    case 'title':
      return nonEmptyString(value) === undefined;
    case 'inputSchema':
    case 'annotations':
      return !isRecord(value) || isEmpty(value);
    case 'tags':
      return !Array.isArray(value) || !value.some((tag) => typeof tag === 'string' && tag !== '');
    default:
      return true; // a field the reading does not know
  }
}

function keyOf(value: unknown): { toolKey?: string } {
  const key = nonEmptyString(value);
  return key === undefined || exceedsCodePoints(key, MAX_NAME_CHARS) ? {} : { toolKey: key };
}

function fail(field: string, message: string): ToolListReading {
  return { ok: false, problems: [{ field, message }] };
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function isEmpty(value: object): boolean {
  for (const key in value) if (Object.hasOwn(value, key)) return false;
  return !Object.hasOwn(value, '__proto__');
}

const nonEmptyString = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;
