import { TOOL_SET_ID_PATTERN, type ToolList } from '@catalog-search/core';
import { ProblemError } from '../http/errors.js';
import type { ToolSetStore } from './tool-set-store.js';

/** A request's tool list, as sent or as referred to. */
export interface RequestToolList {
  list: ToolList;
  /** The list's id, for `meta.toolSet` (absent when references are off). */
  toolSet?: string;
  /**
   * For a list sent in full: settles when it is stored for the other replicas (await before
   * answering), with whether any store kept it (`meta.toolSet` is given only then).
   */
  kept?: Promise<boolean>;
  byReference: boolean;
}

const TOOL_SET_ID = new RegExp(TOOL_SET_ID_PATTERN);

/**
 * The list a body's `toolSet` names, from this project's store (409 TOOL_SET_UNKNOWN when it does
 * not have it); undefined when the body has no `toolSet`. Runs before the envelope is validated, so
 * it checks the id itself. Tools skipped when the list was sent were reported then: a reference
 * names the usable list.
 */
export async function referencedList(
  body: unknown,
  projectId: string,
  store: ToolSetStore,
): Promise<RequestToolList | undefined> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const { toolSet, tools, servers } = body as Record<string, unknown>;
  if (toolSet === undefined) return undefined;
  if (tools !== undefined || servers !== undefined) {
    throw new ProblemError('INVALID_REQUEST', 'body /toolSet: send one of tools, servers or toolSet', {
      errors: [{ field: '/toolSet', message: 'must not be sent together with tools or servers' }],
    });
  }
  if (typeof toolSet !== 'string' || !TOOL_SET_ID.test(toolSet)) {
    throw new ProblemError(
      'INVALID_REQUEST',
      'body /toolSet: must be a tool-set id (43 characters of A-Z a-z 0-9 _ -)',
      {
        errors: [{ field: '/toolSet', message: `must match pattern "${TOOL_SET_ID_PATTERN}"` }],
      },
    );
  }
  const held = store.enabled ? await store.resolve(projectId, toolSet) : undefined;
  if (held === undefined) {
    throw new ProblemError(
      'TOOL_SET_UNKNOWN',
      `body /toolSet: this service does not have tool set "${toolSet}" (any more); send the list as tools.`,
      {
        errors: [{ field: '/toolSet', message: 'unknown tool set: send the tools again' }],
      },
    );
  }
  return { list: { tools: held, skipped: [], skippedCount: 0 }, toolSet, byReference: true };
}

/**
 * A list sent in full, as the search should use it: when it is the list this project sent last (the
 * same JSON), its tools are the array the store holds, so that the rank cache and the semantic stage
 * find their work for it by the array instead of reading 1,000 new objects again (what a search by
 * reference does). The skipped tools stay those of this request.
 */
export function sentList(
  list: ToolList | undefined,
  projectId: string,
  store: ToolSetStore,
): RequestToolList | undefined {
  if (list === undefined) return undefined;
  const held = store.enabled ? store.heldCopyOf(projectId, list.tools) : undefined;
  return { list: held ? { ...list, tools: held } : list, byReference: false };
}

/**
 * A body's `tools` that are, as parsed, the list this project sent last (ToolSetStore.heldListSentAs):
 * the held array, with nothing skipped, without reading the tools again. Undefined otherwise (the
 * list is then read as any other, and sentList may still find it once read). `sentBytes`: the bytes
 * the body's `tools` were, noted for the held list when they read as it.
 */
export function resentList(
  tools: unknown,
  projectId: string,
  store: ToolSetStore,
  sentBytes?: Uint8Array,
): RequestToolList | undefined {
  const held = store.enabled && Array.isArray(tools) ? store.heldListSentAs(projectId, tools) : undefined;
  if (held === undefined) return undefined;
  // The bytes these tools came in read as the held list: their next send is recognised unparsed (resent-body.ts).
  if (sentBytes !== undefined) store.noteSentAs(projectId, held, sentBytes);
  return { list: { tools: held, skipped: [], skippedCount: 0 }, byReference: false };
}

/** Keeps a list sent in full (its usable tools) for references, and gives its id. */
export function registeredList(list: ToolList, projectId: string, store: ToolSetStore): RequestToolList {
  if (!store.enabled) return { list, byReference: false };
  const { id, kept } = store.register(projectId, list.tools);
  return { list, toolSet: id, kept, byReference: false };
}
