import { toolSetId, type ToolInfo } from '@catalog-search/core';
import { APIError } from './errors.js';

/** Ids remembered as held by the service: a router has one list at a time, a few while it changes. */
const MAX_REMEMBERED = 16;

/**
 * The client's side of tool-set references (docs/api.md): the ids the service answered in
 * `meta.toolSet` are lists it holds; a search whose list has one of those ids (computed here from
 * the list of each search, never remembered per array, so a list changed even in place is sent in
 * full) sends `toolSet: "<id>"` instead of the list, about 150 bytes. The id is computed only when
 * some id is held: until the service has answered once, a search costs no serialisation before its
 * connection is up (see streamed-body.ts).
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

  /** Whether any list is known to be held (else there is nothing to refer to). */
  get any(): boolean {
    return this.#held.size > 0;
  }

  holds(id: string | undefined): id is string {
    return id !== undefined && this.#held.has(id);
  }

  /**
   * After an answer: the service holds the list it answered the id of. That id is the service's
   * hash of exactly what was sent, so a later list with the same id (computed here) is that list.
   */
  learn(answered: string | undefined): void {
    if (answered === undefined) return;
    this.#held.delete(answered);
    this.#held.add(answered);
    if (this.#held.size > MAX_REMEMBERED) this.#held.delete(this.#held.values().next().value!);
  }

  forget(id: string): void {
    this.#held.delete(id);
  }
}

/**
 * Whether the service refused a reference in a way that sending the list may not be: 409
 * TOOL_SET_UNKNOWN (it lost the list: restart, eviction, TTL), and any other 400, 409 or 422, which
 * is what a replica of a version before references answers for the unknown `toolSet` field (a
 * rolling update or a rollback behind one URL). The list sent then gets the answer a search with
 * the list would have had: a reference never fails a search that the list would not have failed.
 */
export function isRefusedReference(error: unknown): boolean {
  return error instanceof APIError && (error.status === 400 || error.status === 409 || error.status === 422);
}
