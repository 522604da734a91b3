import type { ToolInfo } from '@catalog-search/core';
import type { FastifyBaseLogger } from 'fastify';
import { BackgroundEmbedder } from './background-embedder.js';
import { EmbeddingError, type Embedder, type EmbeddingFailure } from './embedder.js';
import { EMBEDDED_DESCRIPTION_CHARS, toolText } from './tool-text.js';
import { VectorCache, type SharedVectors } from './vector-cache.js';
import type { HeldKey, MemoryBudget } from '../memory/index.js';

/**
 * How the semantic stage ran for a search (`meta.semantic`):
 * - `hybrid`: every tool and the request had vectors; the ranking is fused;
 * - `partial`: some tools' vectors are still being embedded (a list seen for the first time); those
 *   tools rank lexically this time;
 * - `pending`: none of the list's vectors are ready yet; the answer is lexical;
 * - `off`: the stage is turned off (EMBEDDINGS=off);
 * - `timeout`, `rate_limited`, `upstream_error`, `invalid_response`: the source failed; `busy`: the
 *   embedded encoder's queue is full. The answer is lexical.
 */
export type SemanticStatus = 'hybrid' | 'partial' | 'pending' | 'off' | EmbeddingFailure;

export interface SemanticVectors {
  status: SemanticStatus;
  /** One vector per sub-query (in order), when the request was embedded. */
  queries?: Float32Array[];
  /** One per tool of the request (by index); undefined where not embedded yet. */
  tools: Array<Float32Array | undefined>;
}

export interface SemanticStageOptions {
  /** Bytes of tool and query vectors kept (all projects). */
  cacheBytes: number;
  /** The service's cache budget, which the vectors are entries of. */
  memory: MemoryBudget;
  /** The most of a search's remaining time the stage may take (query vectors and cold tool vectors). */
  waitShare: number;
  /** Tool texts queued for background embedding per project. */
  maxQueuedPerProject: number;
  /** Told, per search, how many of its tools' vectors this process held (hits) and lacked (misses). */
  onLookup?: ((hits: number, misses: number) => void) | undefined;
  /** Redis, when REDIS_URL is set: vectors embedded by any replica serve all of them. */
  shared?: SharedVectors | undefined;
  log?: Pick<FastifyBaseLogger, 'warn'>;
}

/**
 * The embedding stage: vectors for a request's sub-queries and tools, from the cache or the source.
 * New tools are embedded in the background; a search waits for them only up to its share of the
 * deadline and uses what is ready. The next search of the same list finds them all cached.
 */
export class SemanticStage {
  readonly #cache: VectorCache;
  readonly #background: BackgroundEmbedder;
  readonly #listKeys = new WeakMap<readonly ToolInfo[], ListKeys>();

  constructor(
    readonly embedder: Embedder,
    private readonly options: SemanticStageOptions,
  ) {
    this.#cache = new VectorCache(options.memory, options.cacheBytes);
    this.#background = new BackgroundEmbedder(embedder, (projectId, keys, vectors) => this.#store(projectId, keys, vectors), {
      maxQueuedPerProject: options.maxQueuedPerProject,
      maxQueuedTotal: options.maxQueuedPerProject * 8,
      batchTimeoutMs: 30_000,
      ...(options.log ? { log: options.log } : {}),
    });
  }

  /** Bytes of vectors kept (all projects), texts waiting for background embedding, and searches waiting for them. */
  get stats(): { bytes: number; queued: number; waiting: number } {
    return { bytes: this.options.memory.usage().byCache.vectors ?? 0, queued: this.#background.queued, waiting: this.#background.waiting };
  }

  async vectors(
    projectId: string,
    request: { query: readonly string[]; tools: readonly ToolInfo[] },
    deadline: { remainingMs(): number; signal: AbortSignal },
    /** Headers for the embeddings calls: the search's W3C trace context. */
    headers?: Readonly<Record<string, string>>,
  ): Promise<SemanticVectors> {
    const waitUntil = performance.now() + Math.floor(deadline.remainingMs() * this.options.waitShare);
    // Made only when the stage must wait (for the encoder or the background embedder): a warm search
    // never does, and an unused timeout would still fire later (see startDeadline).
    let waitSignal: AbortSignal | undefined;
    const signal = () =>
      (waitSignal ??= AbortSignal.any([deadline.signal, AbortSignal.timeout(Math.max(1, Math.floor(waitUntil - performance.now())))]));

    // The query goes to the encoder first: the tools' keys are worked out while it is embedded.
    const queryVectors = this.#queryVectors(projectId, request.query, signal, headers);
    const { ids, held } = this.#keysOf(request.tools);
    // Only the first tools whose vectors the project can keep are looked up, fetched or embedded
    // (VectorCache.capacity); the rest rank lexically. Not even looked up: a lookup would keep them.
    const reach = Math.min(held.length, this.#cache.capacity(this.embedder.dimensions));
    const tools = held.map((key, index) => (index < reach ? this.#cache.getHeld(projectId, key) : undefined));
    // Looked up again once the shared store or the background embedder may have brought them.
    const absent = (): number[] => tools.slice(0, reach).flatMap((vector, index) => (vector === undefined ? [index] : []));
    const refresh = (indexes: readonly number[]) => indexes.forEach((index) => (tools[index] = this.#cache.getHeld(projectId, held[index]!)));
    const missing = new Map<string, string>();
    const lacking = absent();
    const hits = reach - lacking.length;
    this.options.onLookup?.(hits, tools.length - hits);
    if (lacking.length > 0) {
      await this.#readShared(projectId, lacking.map((index) => ids[index]!));
      refresh(lacking);
      for (const index of absent()) missing.set(ids[index]!, toolText(request.tools[index]!));
    }
    const cold = missing.size === 0 ? undefined : this.#background.embed(projectId, missing, signal(), headers);
    const [queries, coldFailure] = await Promise.all([queryVectors, cold]);
    if (missing.size > 0) refresh(absent());
    if (!Array.isArray(queries)) return { status: queries, tools: [] };
    const ready = tools.filter((vector) => vector !== undefined).length;
    if (ready === tools.length) return { status: 'hybrid', queries, tools };
    if (coldFailure) return { status: coldFailure, queries, tools };
    return { status: ready === 0 ? 'pending' : 'partial', queries, tools };
  }

  async #queryVectors(
    projectId: string,
    requested: readonly string[],
    signal: () => AbortSignal,
    headers: Readonly<Record<string, string>> | undefined,
  ): Promise<Float32Array[] | EmbeddingFailure> {
    // As much of each sub-query as of a tool's description: a query's cost grows with its length.
    const queries = requested.map((query) => query.slice(0, EMBEDDED_DESCRIPTION_CHARS));
    const ids = queries.map((query) => VectorCache.contentId(this.embedder.model, `query\u0000${query}`));
    await this.#readShared(projectId, ids.filter((id) => this.#cache.get(projectId, id) === undefined));
    const vectors = ids.map((id) => this.#cache.get(projectId, id));
    const missing = queries.filter((_, i) => vectors[i] === undefined);
    if (missing.length > 0) {
      let fresh: Float32Array[];
      try {
        fresh = await this.embedder.embed(missing, { signal: signal(), headers, projectId });
      } catch (error) {
        if (!(error instanceof EmbeddingError)) throw error;
        if (error.reason !== 'timeout') this.options.log?.warn({ err: error }, 'query embedding failed; answering lexically');
        return error.reason;
      }
      let next = 0;
      const freshIds: string[] = [];
      vectors.forEach((vector, i) => {
        if (vector !== undefined) return;
        vectors[i] = fresh[next++]!;
        freshIds.push(ids[i]!);
      });
      this.#store(projectId, freshIds, fresh);
    }
    return vectors as Float32Array[];
  }

  /**
   * The tools' content ids, and the cache's keys for them. A list searched by reference (`toolSet`) is
   * the very array the tool-set store holds on every search, so its ids (a text and a SHA-256 per tool:
   * 1.8 ms of a 1,000-tool search, measured) and keys (0.14 ms, see ProjectCache.heldKey) are worked
   * out once and kept as long as the list lives (a WeakMap keyed by the array, as core's rank cache
   * does; about 250 bytes per tool beside the held list). Ids say only what a text is, so the list's
   * project does not matter here.
   */
  #keysOf(tools: readonly ToolInfo[]): ListKeys {
    const { model } = this.embedder;
    const known = this.#listKeys.get(tools);
    if (known?.model === model) return known;
    const ids = tools.map((tool) => VectorCache.contentId(model, toolText(tool)));
    const keys = { model, ids, held: ids.map((id) => this.#cache.heldKey(id)) };
    this.#listKeys.set(tools, keys);
    return keys;
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
      if (vector !== undefined && (dimensions === undefined || vector.length === dimensions)) this.#cache.set(projectId, ids[i]!, vector);
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

  close(): Promise<void> {
    return this.embedder.close();
  }
}

/** A tool list's content ids (by index) under `model`, and the vector cache's keys for them. */
interface ListKeys {
  model: string;
  ids: readonly string[];
  held: readonly HeldKey[];
}
