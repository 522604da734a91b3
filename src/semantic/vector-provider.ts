import type { FastifyBaseLogger } from 'fastify';
import { abortAfter, boundedWait, type SemanticStatus, type ToolInfo } from '@catalog-search/core';
import { BackgroundEmbedder } from './background-embedder.js';
import { EmbeddingError, type Embedder, type EmbeddingFailure } from './embedder.js';
import { SourceBreaker, type SourceBreakerOptions } from './source-breaker.js';
import { queryText, toolText } from './tool-text.js';
import { ListMatrix, LookedUpVectors, type ToolVectors } from './tool-vectors.js';
import { VectorCache, type SharedVectors } from './vector-cache.js';
import { stringBytes, type HeldKey, type MemoryBudget, type ProjectCache } from '../memory/exports.js';

/** What the provider has for a search; `status` becomes `meta.semantic` (SemanticStatus, defined in core). */
interface SemanticVectors {
  status: SemanticStatus;
  /** One vector per sub-query (in order), when the request was embedded. */
  queries?: Float32Array[];
  /** One per tool of the request (by index); none where not embedded yet. */
  tools: ToolVectors;
}

export interface VectorProviderOptions {
  /** Bytes of tool and query vectors kept (all projects). */
  cacheBytes: number;
  /** The service's cache budget, which the vectors are entries of. */
  memory: MemoryBudget;
  /**
   * The share of a search's remaining time it may wait for a new list's tool vectors (and its request's
   * vector, if longer than `queryWaitMs`). 0 (the default): a search never waits for tool vectors.
   */
  waitShare: number;
  /**
   * The most a search waits for its request's vector (a new query's; a cached one costs nothing).
   * Default: DEFAULT_QUERY_WAIT_MS by source.
   */
  queryWaitMs?: number | undefined;
  /** Tool texts queued for background embedding per project. */
  maxQueuedPerProject: number;
  /** Told, per search, how many of its tools' vectors this process held (hits) and lacked (misses). */
  onLookup?: ((hits: number, misses: number) => void) | undefined;
  /** Redis, when REDIS_URL is set: vectors embedded by any replica serve all of them. */
  shared?: SharedVectors | undefined;
  /** The failing-source breaker's settings (tests shorten them). */
  breaker?: Partial<Pick<SourceBreakerOptions, 'threshold' | 'coolDownMs' | 'maxCoolDownMs'>> | undefined;
  log?: Pick<FastifyBaseLogger, 'warn' | 'info'>;
}

/**
 * The default bound on a search's wait for its request's vector. Embedded encoder: a request of one or
 * two sentences in the query lane, which holds no tool text (embedded-source.ts), with room for a busy
 * machine. Endpoint: one HTTPS round trip (docs/performance.md#the-semantic-stages-figures).
 */
const DEFAULT_QUERY_WAIT_MS = { embedded: 60, endpoint: 250 } as const;
/** The longest a request's embeddings call may run: past its bound the search has gone on, and the vector is cached for the next. */
const QUERY_CALL_TIMEOUT_MS = 5000;
/** Bytes a list's keys hold per tool (ListKeys): its content id and the vector cache's key, as strings, and two array slots. */
const LIST_KEY_BYTES_PER_TOOL = stringBytes('0'.repeat(43)) + stringBytes(`vectors\u0000${'0'.repeat(43)}`) + 16;
/** Request embeddings calls in flight at most (an endpoint that hangs must not collect unbounded calls). */
const MAX_QUERY_CALLS = 16;

/** What a search passes besides its project, request and deadline. */
interface VectorsOptions {
  /** Headers for the embeddings calls: the search's W3C trace context. */
  headers?: Readonly<Record<string, string>> | undefined;
  /** The list's tool-set id, when known (a list sent in full is a new array on every search). */
  listId?: string | undefined;
}

/** A search's waits: for its tools' vectors (0: none), and for its request's vector. */
interface WaitBounds {
  shareMs: number;
  queryWaitMs: number;
}

/** A list's tool vectors as held for one search, and how to read them again once more have come. */
interface HeldVectors {
  /** Each tool's content id. */
  ids: readonly string[];
  /** How many of the first tools the project can keep vectors of. */
  reach: number;
  tools: ToolVectors;
  refresh(indexes: readonly number[]): void;
}

/**
 * The vector provider behind the semantic stage (src/semantic/stage.ts): vectors for a request's
 * sub-queries and tools, from the cache or the source.
 *
 * Nothing waits for tool vectors by default: a list's tools without vectors are queued for background
 * embedding, and the search fuses what is ready (a list's first search is lexical, at lexical speed).
 * The request's own vector is made only if it is ready within `queryWaitMs`; otherwise the search is
 * lexical (`timeout`) and the vector, when it comes, is kept for the next search. A source that keeps
 * failing is skipped for a cool-down (SourceBreaker). Every wait ends by its bound or the deadline,
 * whatever the garbage collector does (core's abortAfter, packages/core/src/waits/abort-after.ts).
 */
export class VectorProvider {
  readonly #cache: VectorCache;
  readonly #background: BackgroundEmbedder;
  readonly #listKeys = new WeakMap<readonly ToolInfo[], ListKeys>();
  readonly #listKeysById: ProjectCache<ListKeys>;
  readonly #matrices: ProjectCache<ListMatrix>;
  #listKeysSerial = 0;
  readonly #breaker: SourceBreaker;
  readonly #queryWaitMs: number;
  #queryCalls = 0;
  /** Request embeddings calls in flight, by project and texts (at most MAX_QUERY_CALLS). */
  readonly #requestCalls = new Map<string, Promise<Float32Array[]>>();
  #closed = false;

  constructor(
    readonly embedder: Embedder,
    private readonly options: VectorProviderOptions,
  ) {
    this.#cache = new VectorCache(options.memory, options.cacheBytes);
    // A content id and the budget's key for it: two strings of ~43 and ~51 characters per tool.
    this.#listKeysById = options.memory.cache<ListKeys>('list-keys', {
      sizeOf: (keys) => keys.ids.length * LIST_KEY_BYTES_PER_TOOL,
    });
    // A list's vectors as one matrix, by tool-set id (ListMatrix).
    this.#matrices = options.memory.cache<ListMatrix>('list-vectors', { sizeOf: (matrix) => matrix.bytes });
    this.#queryWaitMs = options.queryWaitMs ?? DEFAULT_QUERY_WAIT_MS[embedder.source];
    this.#breaker = new SourceBreaker({
      threshold: 5,
      coolDownMs: 30_000,
      maxCoolDownMs: 300_000,
      ...options.breaker,
      onChange: (state, detail) =>
        state === 'open'
          ? options.log?.warn(
              { failures: detail.failures, coolDownMs: detail.coolDownMs },
              'embeddings source failing; semantic stage skipped for a cool-down',
            )
          : options.log?.info('embeddings source answering again; semantic stage back on'),
    });
    this.#background = new BackgroundEmbedder(
      embedder,
      (projectId, keys, vectors) => this.#store(projectId, keys, vectors),
      {
        maxQueuedPerProject: options.maxQueuedPerProject,
        maxQueuedTotal: options.maxQueuedPerProject * 8,
        batchTimeoutMs: 30_000,
        breaker: this.#breaker,
        ...(options.log ? { log: options.log } : {}),
      },
    );
  }

  /** Bytes of vectors kept (all projects), texts waiting for background embedding, and searches waiting for them. */
  get stats(): { bytes: number; queued: number; waiting: number } {
    return {
      bytes: this.options.memory.usage().byCache.vectors ?? 0,
      queued: this.#background.queued,
      waiting: this.#background.waiting,
    };
  }

  /**
   * The vectors of a search: its sub-queries' and its list's tools', as far as they are ready within
   * the search's waits (the status says how far). Steps: the waits' bounds, the list's vectors held,
   * the lacking ones read from Redis or queued for embedding, the request's vector, the status.
   */
  async vectors(
    projectId: string,
    request: { query: readonly string[]; tools: readonly ToolInfo[] },
    deadline: { remainingMs(): number; signal: AbortSignal },
    options: VectorsOptions = {},
  ): Promise<SemanticVectors> {
    const { headers, listId } = options;
    const bounds = this.#waitBounds(deadline);
    const held = this.#heldVectors(projectId, request.tools, listId);
    const { tools } = held;
    const lacking = tools.absent();
    const hits = held.reach - lacking.length;
    this.options.onLookup?.(hits, tools.length - hits);
    // Awaited for the read from Redis only: `cold` is the wait for the embedding, joined below.
    const { cold } =
      lacking.length > 0
        ? await this.#fetchLacking(projectId, request.tools, held, lacking, bounds, deadline, headers)
        : { cold: undefined };
    // Nothing to compare a request's vector with, and no wait for any: no call for it (a list's first search).
    if (bounds.shareMs <= 0 && tools.length > 0 && tools.ready === 0) {
      return { status: this.#breaker.open ? 'unavailable' : 'pending', tools };
    }
    const [queries, coldFailure] = await Promise.all([
      this.#queryVectors(projectId, request.query, bounds.queryWaitMs, headers),
      cold,
    ]);
    if (cold !== undefined) held.refresh(tools.absent());
    if (!Array.isArray(queries)) return { status: queries, tools: new LookedUpVectors([], 0) };
    const { ready } = tools;
    if (ready === tools.length) return { status: 'hybrid', queries, tools };
    if (coldFailure) return { status: coldFailure, queries, tools };
    return { status: ready === 0 ? 'pending' : 'partial', ...(ready === 0 ? {} : { queries }), tools };
  }

  /**
   * How long a search waits: for its tools' vectors, its share of what is left (EMBEDDINGS_WAIT_PERCENT;
   * 0: it never waits for them), and for the request's vector at most half of what is left (the rest is
   * the model's and the answer's).
   */
  #waitBounds(deadline: { remainingMs(): number }): WaitBounds {
    const shareMs = Math.floor(deadline.remainingMs() * this.options.waitShare);
    const queryWaitMs = Math.min(Math.max(this.#queryWaitMs, shareMs), Math.floor(deadline.remainingMs() / 2));
    return { shareMs, queryWaitMs };
  }

  /**
   * The list's tool vectors this process holds. Only the first tools whose vectors the project can keep
   * are looked up, fetched or embedded (VectorCache.capacity); the rest rank lexically. Not even looked
   * up: a lookup would keep them.
   */
  #heldVectors(projectId: string, list: readonly ToolInfo[], listId: string | undefined): HeldVectors {
    const keys = this.#keysOf(projectId, list, listId);
    const { held } = keys;
    const reach = Math.min(held.length, this.#cache.capacity(this.embedder.dimensions));
    const lookUp = (index: number) => this.#ofSourceLength(this.#cache.getHeld(projectId, held[index]!));
    const tools: ToolVectors =
      (listId === undefined ? undefined : this.#matrixOf(projectId, listId, keys, reach, lookUp)) ??
      new LookedUpVectors(
        held.map((_, index) => (index < reach ? lookUp(index) : undefined)),
        reach,
      );
    return { ids: keys.ids, reach, tools, refresh: (indexes) => tools.refresh(indexes, lookUp) };
  }

  /**
   * The lacking tool vectors: read from Redis (another replica may have them), the rest queued for
   * embedding, which the search waits for only with a wait share. Returns that wait (its failure, if
   * any), undefined when nothing was queued, wrapped: an async function returning it would await it.
   */
  async #fetchLacking(
    projectId: string,
    list: readonly ToolInfo[],
    held: HeldVectors,
    lacking: readonly number[],
    bounds: WaitBounds,
    deadline: { signal: AbortSignal },
    headers: Readonly<Record<string, string>> | undefined,
  ): Promise<{ cold: Promise<EmbeddingFailure | undefined> | undefined }> {
    const { ids } = held;
    await this.#readShared(
      projectId,
      lacking.map((index) => ids[index]!),
    );
    held.refresh(lacking);
    // Texts are worked out only for tools not queued yet (BackgroundEmbedder.embed).
    const missing = new Map<string, () => string>();
    for (const index of held.tools.absent()) missing.set(ids[index]!, () => toolText(list[index]!));
    if (missing.size === 0) return { cold: undefined };
    // Queued even while the breaker is open: the background embedder sends nothing then, and its first
    // batch after the cool-down is the probe.
    const wait = bounds.shareMs > 0 ? abortAfter(bounds.shareMs, deadline.signal) : undefined;
    return { cold: this.#background.embed(projectId, missing, wait?.signal, headers).finally(() => wait?.dispose()) };
  }

  /**
   * Starts embedding the request now, before the lexical stage, so that the embedded encoder's thread
   * embeds it while this one ranks by words; `vectors()` then waits for that call rather than making
   * another. Only for a list named by its id whose matrix has vectors: a list's first search, which
   * compares nothing, makes no call (the gain: docs/performance.md#the-semantic-stages-figures). An endpoint's call waits for the
   * semantic stage, whose trace context it carries.
   */
  startRequest(projectId: string, query: readonly string[], listId: string): void {
    if (this.#closed || this.embedder.source !== 'embedded' || query.length === 0) return;
    if ((this.#matrices.get(projectId, listId)?.ready ?? 0) === 0) return;
    // Bound 0: nothing waits here; the call goes on and vectors() waits for it within its own bound.
    void this.#queryVectors(projectId, query, 0, undefined);
  }

  /**
   * The request's vectors: cached, or embedded if ready within `waitMs`. A call that misses the bound
   * goes on (up to QUERY_CALL_TIMEOUT_MS) and its vectors are kept for the next search.
   */
  async #queryVectors(
    projectId: string,
    requested: readonly string[],
    waitMs: number,
    headers: Readonly<Record<string, string>> | undefined,
  ): Promise<Float32Array[] | EmbeddingFailure | 'unavailable'> {
    // The text eval embeds too (tool-text.ts): a query's cost grows with its length.
    const queries = requested.map(queryText);
    const ids = queries.map((query) => VectorCache.contentId(this.embedder.model, `query\u0000${query}`));
    // Without Redis no await here: startRequest's call must reach the encoder before the lexical stage runs.
    if (this.options.shared !== undefined)
      await this.#readShared(
        projectId,
        ids.filter((id) => this.#cache.get(projectId, id) === undefined),
      );
    const vectors = ids.map((id) => this.#ofSourceLength(this.#cache.get(projectId, id)));
    const missing = queries.filter((_, i) => vectors[i] === undefined);
    if (missing.length === 0) return vectors as Float32Array[];
    const freshIds = ids.filter((_, i) => vectors[i] === undefined);
    // The same texts already on their way (startRequest's call): wait for that call.
    const callKey = `${projectId}\u0000${freshIds.join('\u0000')}`;
    let work = this.#requestCalls.get(callKey);
    if (work === undefined) {
      if (this.#queryCalls >= MAX_QUERY_CALLS) return 'busy';
      if (!this.#breaker.allows()) return 'unavailable';
      this.#queryCalls += 1;
      const call = abortAfter(QUERY_CALL_TIMEOUT_MS);
      work = this.embedder
        .embed(missing, { signal: call.signal, headers, projectId })
        .then((fresh) => {
          this.#store(projectId, freshIds, fresh);
          return fresh;
        })
        .finally(() => {
          call.dispose();
          this.#queryCalls -= 1;
          this.#requestCalls.delete(callKey);
        });
      this.#requestCalls.set(callKey, work);
    }
    let fresh: Float32Array[] | undefined;
    try {
      fresh = await boundedWait(work, { ms: waitMs });
    } catch (error) {
      // Busy is this replica's own queue, not the source failing.
      if (!(error instanceof EmbeddingError) || error.reason !== 'busy') this.#breaker.failure();
      if (!(error instanceof EmbeddingError)) throw error;
      // Quiet while closing: the source stops under the calls in flight.
      if (error.reason !== 'timeout' && error.reason !== 'busy' && !this.#closed)
        this.options.log?.warn({ err: error }, 'query embedding failed; answering lexically');
      return error.reason;
    }
    if (fresh === undefined) {
      // Not ready in time: the search goes on lexically; the call's own outcome is of no more interest here.
      work.catch(() => {});
      // An endpoint past the bound costs every search the bound for nothing: a failure. The embedded
      // encoder past it is a busy machine, not a failing source: skipping it would also stop the
      // background embedding that is using the CPU well (seen here at load 16: queries past the bound
      // opened the breaker, and a 1,000-tool list stopped embedding for the cool-downs).
      // (Only a miss of the whole bound: a search with little time left gives a source no fair chance.)
      if (this.embedder.source === 'endpoint' && waitMs >= this.#queryWaitMs) this.#breaker.failure();
      return 'timeout';
    }
    this.#breaker.success();
    let next = 0;
    return vectors.map((vector) => vector ?? fresh[next++]!);
  }

  /**
   * The tools' content ids, and the cache's keys for them: a text and a SHA-256 per tool, as much work
   * as parsing the list (docs/performance.md#the-semantic-stages-figures). Worked out once per list and kept:
   * - by the array, for a list searched by reference (`toolSet`), which is the very array the tool-set
   *   store holds on every search (a WeakMap, as core's rank cache does);
   * - by the list's tool-set id, for a list sent in full (a new array on every search), in the memory
   *   budget as the project's entry (its share, fair trimming), so that a router that resends its list
   *   pays for its keys once, not on every search.
   * Ids say only what a text is; the id-keyed entries are per project all the same, as every cache here.
   */
  #keysOf(projectId: string, tools: readonly ToolInfo[], listId: string | undefined): ListKeys {
    const { model } = this.embedder;
    const known =
      this.#listKeys.get(tools) ?? (listId === undefined ? undefined : this.#listKeysById.get(projectId, listId));
    if (known?.model === model && known.ids.length === tools.length) {
      this.#listKeys.set(tools, known);
      return known;
    }
    const ids = tools.map((tool) => VectorCache.contentId(model, toolText(tool)));
    this.#listKeysSerial += 1;
    const keys = { model, ids, held: ids.map((id) => this.#cache.heldKey(id)), serial: this.#listKeysSerial };
    this.#listKeys.set(tools, keys);
    if (listId !== undefined) this.#listKeysById.set(projectId, listId, keys);
    return keys;
  }

  /**
   * The list's vectors as one matrix (ListMatrix), kept by its tool-set id in the memory budget as the
   * project's entry, so that a search of a list the service holds (by reference, or the list sent last
   * again) neither looks its tools up one by one nor reads vectors scattered over the heap. Only its
   * empty rows are looked up, on each search: once a list is embedded, a search reads the matrix and
   * nothing else. (Looking them up only after the cache stored new vectors saves nothing: a search of a
   * list with empty rows looks them up again anyway, after asking the shared store.)
   * None (the caller looks the tools up as before) while the model's length is unknown, or for a list
   * whose matrix would take more than a quarter of what the project's vectors can (VectorCache
   * projectBytes), so that a large list does not push its own vectors and the project's other entries out.
   * A search of the matrix reads none of the list's vectors in the cache, so they age there: under
   * memory pressure they are the project's oldest entries and go first, and the matrix (read by every
   * search) holds the list's vectors instead of them (the gain: docs/performance.md#the-semantic-stages-figures).
   */
  #matrixOf(
    projectId: string,
    listId: string,
    keys: ListKeys,
    reach: number,
    lookUp: (index: number) => Float32Array | undefined,
  ): ListMatrix | undefined {
    const { dimensions, model } = this.embedder;
    if (dimensions === undefined || ListMatrix.bytes(reach, dimensions) > this.#cache.projectBytes / 4)
      return undefined;
    let matrix = this.#matrices.get(projectId, listId);
    if (
      matrix?.keysSerial !== keys.serial ||
      matrix.model !== model ||
      matrix.dimensions !== dimensions ||
      matrix.rows !== reach
    ) {
      matrix = new ListMatrix(keys.ids.length, reach, dimensions, model, keys.serial);
      if (!this.#matrices.set(projectId, listId, matrix)) return undefined;
    }
    matrix.refresh(matrix.absent(), lookUp);
    return matrix;
  }

  /** A cached vector, unless it has another length than the source's now (an endpoint whose model changed): then it is embedded anew. */
  #ofSourceLength(vector: Float32Array | undefined): Float32Array | undefined {
    const { dimensions } = this.embedder;
    return vector !== undefined && (dimensions === undefined || vector.length === dimensions) ? vector : undefined;
  }

  /**
   * Brings the replicas' vectors for these keys (ones this process lacks) into the local cache. Bounded
   * by REDIS_TIMEOUT_MS; on any Redis trouble nothing is brought and the caller embeds.
   */
  async #readShared(projectId: string, ids: readonly string[]): Promise<void> {
    const { shared } = this.options;
    if (shared === undefined || ids.length === 0) return;
    const vectors = await shared.read(projectId, ids);
    // A vector of another length than the model's cannot be compared with its others.
    const { dimensions } = this.embedder;
    vectors.forEach((vector, i) => {
      if (vector !== undefined && (dimensions === undefined || vector.length === dimensions))
        this.#cache.set(projectId, ids[i]!, vector);
    });
  }

  /** Keeps fresh vectors here and, when configured, for the other replicas. */
  #store(projectId: string, ids: readonly string[], vectors: readonly Float32Array[]): void {
    ids.forEach((id, i) => this.#cache.set(projectId, id, vectors[i]!));
    this.options.shared?.write(
      projectId,
      ids.map((id, i) => [id, vectors[i]!] as const),
    );
  }

  /** Whether close() was called (work failing after it is the shutdown, not a fault). */
  get closed(): boolean {
    return this.#closed;
  }

  /** Drops the background queue (one log line says how many texts) and stops the source. */
  close(): Promise<void> {
    this.#closed = true;
    this.#background.close();
    return this.embedder.close();
  }
}

/** A tool list's content ids (by index) under `model`, and the vector cache's keys for them. */
interface ListKeys {
  model: string;
  ids: readonly string[];
  held: readonly HeldKey[];
  /** Which keys these are (a matrix records the keys it was filled by, without holding them). */
  serial: number;
}
