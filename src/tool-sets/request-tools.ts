import type { SearchRequest, SearchRequestBody } from '@catalog-search/core';
import { ProblemError } from '../errors.js';
import { rejectDuplicateToolKeys } from '../search/limits.js';
import type { ToolSetStore } from './tool-set-store.js';

export interface RequestTools {
  /** The search with its tool list in hand. */
  request: SearchRequest;
  /** The list's id, for `meta.toolSet` (absent when references are off). */
  toolSet?: string;
  /** Settles when a list sent in full is stored for the other replicas (await before answering). */
  saved?: Promise<unknown>;
}

/**
 * The tool list of a request body: the list it carries (then kept, and its id returned), or the
 * list its `toolSet` names (409 TOOL_SET_UNKNOWN when this project's store does not have it).
 */
export async function requestTools(body: SearchRequestBody, projectId: string, store: ToolSetStore): Promise<RequestTools> {
  const { tools, toolSet, ...rest } = body;
  if (tools !== undefined && toolSet !== undefined) {
    throw new ProblemError('INVALID_REQUEST', 'body /toolSet: send either tools or toolSet, not both', {
      errors: [{ field: '/toolSet', message: 'must not be sent together with tools' }],
    });
  }
  if (toolSet !== undefined) {
    const held = store.enabled ? await store.resolve(projectId, toolSet) : undefined;
    if (held === undefined) {
      throw new ProblemError('TOOL_SET_UNKNOWN', `body /toolSet: this service does not have tool set "${toolSet}" (any more); send the list as tools.`, {
        errors: [{ field: '/toolSet', message: 'unknown tool set: send the tools again' }],
      });
    }
    return { request: { ...rest, tools: held }, toolSet };
  }
  if (tools === undefined) {
    throw new ProblemError('INVALID_REQUEST', "body /tools: must have required property 'tools' (or 'toolSet')", {
      errors: [{ field: '/tools', message: "must have required property 'tools' (or 'toolSet')" }],
    });
  }
  rejectDuplicateToolKeys(tools);
  if (!store.enabled) return { request: { ...rest, tools } };
  const { id, saved } = store.register(projectId, tools);
  return { request: { ...rest, tools }, toolSet: id, saved };
}
