import { toolSetId, type ToolInfo } from '@catalog-search/core';
import { APIError } from './errors.js';

/** Ids remembered (as held, and as not kept): a router has one list at a time, a few while it changes. */
const MAX_REMEMBERED = 16;

/**
 * How long a list the service handed out an id for but did not keep is sent in full before a
 * reference is tried again. Believing wrongly that it is not kept costs the full upload each search
 * (what every search paid before references); trying again costs one ~150-byte round trip. A
 * rolling update can make the service look like that for a while (a new replica answers the id, an
 * old one refuses it), so the belief must not last for the life of the router.
 */
export const UNKEPT_RETRY_MS = 10 * 60_000;

/** The client's belief that the service holds the list with this id. */
interface HeldToolSet {
  readonly id: string;
  /** The id was answered to the list resent after a refused reference (not yet confirmed by a reference answer). */
  readonly afterRefusal: boolean;
}

/**
 * The client's side of tool-set references (docs/api.md): the ids the service answered in
 * `meta.toolSet` are lists it holds; a search whose list has one of those ids (computed here from
 * the list of each search, never remembered per array, so a list changed even in place is sent in
 * full) sends `toolSet: "<id>"` instead of the list, about 150 bytes. The id is computed only when
 * some id is held: until the service has answered once, a search costs no serialisation before its
 * connection is up (see streamed-body.ts).
 *
 * A refused reference is answered by sending the list (cloud-search.ts). A service that refuses an id again
 * right after handing it out for the resent list does not keep that list (a replica of a version
 * without references behind the same URL, or a service before 24 Nov 2026, which handed out ids for
 * lists larger than its store; it now answers those without an id): the list is then sent in full for UNKEPT_RETRY_MS,
 * instead of costing two round trips on every search.
 */
export class ToolSetReferences {
  // Insertion order is recency order: the oldest entry is dropped first.
  readonly #held = new Map<string, HeldToolSet>();
  /** Ids the service answered but did not keep, with the clock time until which the list is sent in full. */
  readonly #unkept = new Map<string, number>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

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

  /** What a reference to `id` would rest on, or undefined when the list must be sent. */
  held(id: string | undefined): HeldToolSet | undefined {
    return id === undefined ? undefined : this.#held.get(id);
  }

  /**
   * After an answer: the service holds the list it answered the id of. That id is the service's
   * hash of exactly what was sent, so a later list with the same id (computed here) is that list.
   * `afterRefusal`: the answer is to a list resent because a reference to it was refused.
   */
  learn(answered: string | undefined, afterRefusal: boolean): void {
    if (answered === undefined) return;
    const until = this.#unkept.get(answered);
    if (until !== undefined) {
      if (this.#now() < until) return;
      this.#unkept.delete(answered);
    }
    remember(this.#held, answered, { id: answered, afterRefusal });
  }

  /** The service refused a reference that rested on `belief`. */
  refused(belief: HeldToolSet): void {
    // A concurrent search may have learned the id again meanwhile: that newer belief stands.
    if (this.#held.get(belief.id) === belief) this.#held.delete(belief.id);
    if (belief.afterRefusal) remember(this.#unkept, belief.id, this.#now() + UNKEPT_RETRY_MS);
  }
}

function remember<V>(entries: Map<string, V>, id: string, value: V): void {
  entries.delete(id);
  entries.set(id, value);
  if (entries.size > MAX_REMEMBERED) entries.delete(entries.keys().next().value!);
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
