import { createHash } from 'node:crypto';
import { canonicalToolSet, readsAs, readToolList, sameJson, type ToolInfo } from '@catalog-search/core';
import { stringBytes, type MemoryBudget, type ProjectCache } from '../memory/exports.js';
import type { SharedStore } from '../redis/shared-store.js';

/** Where a referenced list was found, for metrics. */
type ToolSetLookup = 'local' | 'shared' | 'miss';

interface ToolSetStoreOptions {
  /** How long a list is kept after it was last sent in full (locally and in Redis). */
  ttlMs: number;
  /** In-process bytes for all projects' lists (estimated, see ESTIMATED_BYTES_PER_CHAR). */
  cacheBytes: number;
  /** The largest list kept in Redis (its canonical JSON), e.g. the request body limit. */
  maxSharedBytes: number;
  shared?: SharedStore | undefined;
  onLookup?: (where: ToolSetLookup) => void;
  /** The service's one cache budget (src/memory): in-process lists count against it, per project. */
  memory: MemoryBudget;
}

/**
 * A parsed tool list held in memory takes about this many bytes per character of its canonical
 * JSON (measured a little under it: docs/performance.md#a-held-tool-lists-bytes), rounded up for
 * lists with non-Latin-1 text, whose strings take two bytes a character.
 * Used to bound the in-process store in bytes.
 */
const ESTIMATED_BYTES_PER_CHAR = 2;

/**
 * The tool lists behind `toolSet` references, per project. In process, the very `tools` array of
 * the request that sent a list is kept: the project's rank cache recognises that array, so a search
 * by reference reads and analyses nothing again (no parse, no re-reading of 1,000 objects). With
 * Redis, the canonical JSON is kept there too (TTL, size limit), so a list sent to one replica can
 * be referred to on any other; a replica that finds it only in Redis parses it once and keeps it.
 * In process, lists are entries of the service's cache budget ('tool-sets', CACHE_MEMORY_MB): one
 * project holds at most its share, and when the budget is full the largest projects give way first.
 * `cacheBytes` (TOOL_SET_CACHE_BYTES) bounds the lists of all projects together besides, least recently
 * used out first (0 keeps none).
 */
export class ToolSetStore {
  readonly #local: ProjectCache<StoreEntry> | undefined;
  readonly #memory: MemoryBudget;

  constructor(private readonly options: ToolSetStoreOptions) {
    this.#memory = options.memory;
    this.#local =
      options.cacheBytes > 0
        ? options.memory.cache<StoreEntry>('tool-sets', {
            sizeOf: (entry) => ('bytes' in entry ? entry.bytes : stringBytes(entry.latestId)),
            ttlMs: options.ttlMs,
            maxBytes: options.cacheBytes,
          })
        : undefined;
  }

  /** Whether references can be answered at all (an in-process store or Redis). */
  get enabled(): boolean {
    return this.#local !== undefined || this.options.shared !== undefined;
  }

  /** Bytes (estimated) held in process. */
  get localBytes(): number {
    return this.#memory.usage().byCache['tool-sets'] ?? 0;
  }

  /** Whether the in-process store took the list (false when it is off or the list is larger than it may hold). */
  #keep(projectId: string, id: string, held: HeldList): boolean {
    return this.#local?.set(projectId, id, held) ?? false;
  }

  /**
   * Keeps a list sent in full and returns its id. `kept` settles when the shared copy is written (or
   * given up), with whether any copy was kept: await it before answering, so that the id handed out can
   * be used on any replica, and hand it out only if it was kept. An id for a list that no store took
   * (larger than TOOL_SET_CACHE_BYTES or the project's share, and no Redis to take it) would only make
   * the caller's next search a refused reference and a resend.
   */
  register(projectId: string, tools: ToolInfo[]): { id: string; kept: Promise<boolean> } {
    // The list this project sent last, if it is sent again: its id and size without the canonical JSON
    // and its SHA-256 (core's sameJson). Routers send the same list with every search.
    const again = this.#sentAgain(projectId, tools);
    // Made only when needed: for a new list, or for a Redis write of one sent again.
    let canonical: string | undefined;
    const canonicalJson = () => (canonical ??= canonicalToolSet(tools));
    const id = again ? again.id : idOf(canonicalJson());
    const sharedAt = again ? again.held.sharedAt : sharedAtOf(this.#local?.get(projectId, id));
    const bytes = again ? again.held.bytes : Math.max(1, canonicalJson().length * ESTIMATED_BYTES_PER_CHAR);
    // The same list again: the bytes it was sent as still read as it.
    const sentAs = again?.held.sentAs;
    const held: HeldList = { tools, sharedAt, bytes, ...(sentAs ? { sentAs } : {}) };
    const keptLocally = this.#keep(projectId, id, held);
    if (keptLocally) this.#local?.set(projectId, LATEST_KEY, { latestId: id });
    const { shared } = this.options;
    if (!shared) return { id, kept: Promise.resolve(keptLocally) };
    const key = shared.key('tool-set', projectId, id);
    const write = () =>
      shared
        .set('tool-set-write', key, canonicalJson(), this.options.ttlMs, this.options.maxSharedBytes)
        .then((written) => {
          if (written) held.sharedAt = Date.now();
          return written || keptLocally;
        });
    // Written from here within the last half TTL: Redis has the bytes, so only its TTL is renewed, as a
    // list sent in full again should be (without this the other replica answered 409 up to half a TTL
    // early); written again if it has gone meanwhile.
    const kept =
      Date.now() - sharedAt < this.options.ttlMs / 2
        ? shared.renew('tool-set-renew', key, this.options.ttlMs).then((renewed) => renewed || write())
        : write();
    return { id, kept };
  }

  /**
   * The array this store holds for the list this project sent last, when `tools` is that list again
   * (the same JSON), else undefined. A search of the held array instead of a new copy finds the rank
   * cache's and the semantic stage's work for it by the array (as a search by reference does).
   */
  heldCopyOf(projectId: string, tools: ToolInfo[]): ToolInfo[] | undefined {
    return this.#sentAgain(projectId, tools)?.held.tools;
  }

  /**
   * The array this store holds for the list this project sent last, when a body's `tools`, as parsed,
   * read as its tools (core's readsAs, tool by tool): reading them (readToolList) would give the held
   * tools again, so they are not read. Routers send the same list with every search, and reading it
   * was a large share of a full-list search's CPU (docs/performance.md#a-list-sent-again-as-it-was-not-read-again).
   */
  heldListSentAs(projectId: string, sent: readonly unknown[]): ToolInfo[] | undefined {
    const held = this.#latest(projectId)?.held.tools;
    // The held array itself: a body recognised by its bytes (resent-body.ts).
    if (held === sent) return held;
    if (held === undefined || held.length !== sent.length) return undefined;
    for (let index = 0; index < sent.length; index += 1) if (!readsAs(sent[index], held[index]!)) return undefined;
    return held;
  }

  /**
   * The list this project sent last, with the bytes of `tools` it was last sent as when they are known
   * (noteSentAs): a body whose `tools` are those bytes again is that list, without a parse.
   */
  latestSent(projectId: string): { tools: ToolInfo[]; sentAs: SentBytes | undefined } | undefined {
    const held = this.#latest(projectId)?.held;
    return held && { tools: held.tools, sentAs: held.sentAs };
  }

  /**
   * Notes that `tools`, the list this project sent last, was sent as `bytes` (the JSON of a body's
   * `tools`, which read as exactly this list): their length and SHA-256, so that the same bytes again are
   * recognised without being parsed (latestSent). Nothing is noted for any other list.
   */
  noteSentAs(projectId: string, tools: ToolInfo[], bytes: Uint8Array): void {
    const held = this.#latest(projectId)?.held;
    // 40 bytes more on a list counted at ~2 bytes a character of its JSON: within the estimate's rounding.
    if (held?.tools === tools) held.sentAs = { length: bytes.length, sha256: sha256Of(bytes) };
  }

  /** The list this project last sent in full, if the store still holds it and `tools` is it again. */
  #sentAgain(projectId: string, tools: ToolInfo[]): { id: string; held: HeldList } | undefined {
    const latest = this.#latest(projectId);
    // The held array itself (a search that used heldCopyOf) is found without a walk.
    return latest && sameJson(tools, latest.held.tools) ? latest : undefined;
  }

  /** The list this project last sent in full, if the store still holds it. */
  #latest(projectId: string): { id: string; held: HeldList } | undefined {
    const pointer = this.#local?.get(projectId, LATEST_KEY);
    const id = pointer && 'latestId' in pointer ? pointer.latestId : undefined;
    const held = id === undefined ? undefined : this.#local?.get(projectId, id);
    return held && 'tools' in held ? { id: id!, held } : undefined;
  }

  /** The list a reference names, if this project's store has it. */
  async resolve(projectId: string, id: string): Promise<ToolInfo[] | undefined> {
    const held = this.#local?.get(projectId, id);
    if (held && 'tools' in held) {
      this.options.onLookup?.('local');
      return held.tools;
    }
    const { shared } = this.options;
    const json = shared ? await shared.get('tool-set-read', shared.key('tool-set', projectId, id)) : undefined;
    const tools = json === undefined ? undefined : parseList(json, id, this.options.maxSharedBytes);
    if (!tools) {
      this.options.onLookup?.('miss');
      return undefined;
    }
    // sharedAt 0: this replica has not written it, so the next full send of it renews the Redis copy.
    this.#keep(projectId, id, { tools, sharedAt: 0, bytes: Math.max(1, json!.length * ESTIMATED_BYTES_PER_CHAR) });
    this.options.onLookup?.('shared');
    return tools;
  }
}

/** A held list under its id, or (under LATEST_KEY) the id of the list the project sent last. */
type StoreEntry = HeldList | { latestId: string };
/** Not a tool-set id (those are 43 characters), so no reference can name it. */
const LATEST_KEY = 'latest';

interface HeldList {
  tools: ToolInfo[];
  /** When this replica last wrote the list to Redis (`Date.now()`; 0: never). */
  sharedAt: number;
  /** Estimated bytes it holds. */
  bytes: number;
  /** The bytes its `tools` were last sent as, once a body sent them again (noteSentAs). */
  sentAs?: SentBytes;
}

/** A body's `tools` bytes, by their length and SHA-256. */
interface SentBytes {
  length: number;
  sha256: Buffer;
}

/** Whether `bytes` hold the bytes `sent` describes from index `at` on. */
export function sentBytesAt(bytes: Uint8Array, at: number, sent: SentBytes): boolean {
  return bytes.length - at >= sent.length && sha256Of(bytes.subarray(at, at + sent.length)).equals(sent.sha256);
}

const sha256Of = (bytes: Uint8Array): Buffer => createHash('sha256').update(bytes).digest();

function sharedAtOf(entry: StoreEntry | undefined): number {
  return entry && 'sharedAt' in entry ? entry.sharedAt : 0;
}

/**
 * core's toolSetIdOf (SHA-256, base64url) through node:crypto, which is faster than the Web Crypto
 * core uses to run in browsers too (docs/performance.md#tool-set-references). Tests check that both agree.
 */
function idOf(canonical: string): string {
  return createHash('sha256').update(canonical).digest('base64url');
}

/**
 * A list read back from Redis, or undefined for anything that is not the list `id` names: a value
 * of another size, another content (corrupted, or written by something else under this key), or a
 * list with a tool the search cannot use (a `[null]` there had failed every search by reference with
 * a 500). Read through core as a request's list is; a list we wrote reads back whole.
 */
function parseList(json: string, id: string, maxBytes: number): ToolInfo[] | undefined {
  if (json.length > maxBytes || idOf(json) !== id) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  const reading = readToolList({ tools: value });
  return reading.ok && reading.list.skippedCount === 0 ? reading.list.tools : undefined;
}
