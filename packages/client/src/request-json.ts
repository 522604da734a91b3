import { inspectNesting, MAX_NESTING_DEPTH, type SearchRequest } from '@catalog-search/core';

/**
 * The JSON of a search request. A server may list a tool nested so deep (20,000 levels) that
 * `JSON.stringify` overflows the stack; the service would skip that tool ("nests deeper than 64
 * levels"), so the request is sent with each such value replaced by a small one that the service
 * skips the same way (same index, same reason). Only on that failure: the usual path costs nothing.
 * Other failures (a BigInt, a cycle) are thrown.
 */
export function requestJson(request: object): string {
  try {
    return JSON.stringify(request);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return JSON.stringify(withShallowTools(request as SearchRequest));
  }
}

function withShallowTools(request: SearchRequest): SearchRequest {
  if ('servers' in request && Array.isArray(request.servers)) {
    return {
      ...request,
      servers: request.servers.map((server) =>
        isRecord(server) && Array.isArray(server.tools) ? { ...server, tools: server.tools.map(shallowTool) } : server,
      ),
    } as SearchRequest;
  }
  if ('tools' in request && Array.isArray(request.tools))
    return { ...request, tools: request.tools.map(shallowTool) } as SearchRequest;
  return request;
}

function shallowTool(tool: unknown): unknown {
  if (Array.isArray(tool)) return tooDeep(tool) ? [] : tool;
  if (!isRecord(tool)) return tool;
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(tool)) {
    const value = tool[key];
    if (typeof value !== 'object' || value === null || !tooDeep(value)) continue;
    copy ??= { ...tool };
    // An object stays an object just too deep (skipped as "nests deeper"); an array stays a non-object.
    copy[key] = Array.isArray(value) ? [] : justTooDeep();
  }
  return copy ?? tool;
}

const tooDeep = (value: object): boolean => inspectNesting(value, MAX_NESTING_DEPTH) === 'too_deep';

/** `{ "a": { "a": … } }`, one level deeper than the service reads. */
function justTooDeep(): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let level = 1; level <= MAX_NESTING_DEPTH; level += 1) value = { a: value };
  return value;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
