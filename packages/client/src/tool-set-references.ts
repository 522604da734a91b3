import { toolSetId, type ToolInfo } from '@catalog-search/core';
import { APIError } from './errors.js';

/** Ids remembered as held by the service: a router has one list at a time, a few while it changes. */
const MAX_REMEMBERED = 16;

/**
 * The client's side of tool-set references (docs/api.md): a list the service said it holds
 * (`meta.toolSet` equal to the id computed here) is sent as `toolSet: "<id>"` from then on, about
 * 100 bytes instead of the whole list. The id is computed from the list of each search, never
 * remembered per array, so a changed list (even one changed in place) is sent in full.
 */
export class ToolSetReferences {
  // Insertion order is recency order: the oldest id is dropped first.
  readonly #held = new Set<string>();

  /** The list's id, or undefined when it cannot be computed (then the list is sent in full). */
  async idOf(tools: readonly ToolInfo[]): Promise<string | undefined> {
    try {
      return await toolSetId(tools);
    } catch {
      return undefined;
    }
  }

  holds(id: string | undefined): id is string {
    return id !== undefined && this.#held.has(id);
  }

  /** After a full-list answer: remember the id if the service computed the same one and keeps it. */
  learn(id: string | undefined, answered: string | undefined): void {
    if (id === undefined || answered !== id) return;
    this.#held.delete(id);
    this.#held.add(id);
    if (this.#held.size > MAX_REMEMBERED) this.#held.delete(this.#held.values().next().value!);
  }

  forget(id: string): void {
    this.#held.delete(id);
  }
}

/** The service no longer has the referenced list (restarted, evicted, expired): send it again. */
export function isToolSetUnknown(error: unknown): boolean {
  return error instanceof APIError && error.status === 409 && error.problem?.code === 'TOOL_SET_UNKNOWN';
}
