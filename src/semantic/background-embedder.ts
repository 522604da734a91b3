import type { FastifyBaseLogger } from 'fastify';
import { abortAfter } from '@catalog-search/core';
import { EmbeddingError, type Embedder, type EmbeddingFailure } from './embedder.js';
import type { SourceBreaker } from './source-breaker.js';

interface BackgroundOptions {
  /** Texts waiting per project; more are not queued (the next search queues them again). */
  maxQueuedPerProject: number;
  /** Texts waiting over all projects. */
  maxQueuedTotal: number;
  /** The longest one batch may take. */
  batchTimeoutMs: number;
  /** Told each batch's outcome; while it is open no batch is sent (the texts stay queued). */
  breaker?: SourceBreaker;
  log?: Pick<FastifyBaseLogger, 'warn' | 'info'>;
}

interface Waiter {
  keys: Set<string>;
  failure: EmbeddingFailure | undefined;
  resolve(failure: EmbeddingFailure | undefined): void;
}

interface ProjectQueue {
  pending: Map<string, string>;
  /** Headers of the latest search that queued texts (its trace context), sent with the project's batches. */
  headers: Readonly<Record<string, string>> | undefined;
  waiters: Set<Waiter>;
  /** Content ids of this project in the batch being embedded. */
  inFlight: Set<string>;
}

const isIdle = (project: ProjectQueue) =>
  project.pending.size === 0 && project.waiters.size === 0 && project.inFlight.size === 0;

/**
 * Embeds tool texts away from any search: one batch at a time over all projects (round robin, so one
 * project's big list cannot starve another's small one), each batch's vectors handed to `store`.
 * One batch at a time keeps an endpoint from being flooded; the embedded encoder runs the batches in
 * its background lane, so no search's query waits behind them (embedded-source.ts).
 */
export class BackgroundEmbedder {
  readonly #projects = new Map<string, ProjectQueue>();
  #queued = 0;
  #running = false;
  #closed = false;

  constructor(
    private readonly embedder: Embedder,
    /** Keeps a batch's vectors (the stage's caches), before anyone waiting on them is told. */
    private readonly store: (projectId: string, keys: readonly string[], vectors: readonly Float32Array[]) => void,
    private readonly options: BackgroundOptions,
  ) {}

  /**
   * Queues what is not queued yet (up to the bounds) and resolves when every given key is embedded
   * or failed, with the failure if one did, or with undefined once `signal` aborts (the texts stay
   * queued); without a signal, at once. Keys that did not fit are resolved at once: they stay lexical
   * until a later search queues them. A key's text is asked for only when the key is queued: every
   * search of a list being embedded names all its tools without vectors, and working out every tool's
   * text costs as much as the rest of the search
   * (docs/performance.md#two-lanes-requests-apart-lists-at-a-lower-priority).
   */
  embed(
    projectId: string,
    entries: ReadonlyMap<string, () => string>,
    signal: AbortSignal | undefined,
    headers?: Readonly<Record<string, string>>,
  ): Promise<EmbeddingFailure | undefined> {
    if (this.#closed) return Promise.resolve(undefined);
    let project = this.#projects.get(projectId);
    if (project === undefined)
      this.#projects.set(
        projectId,
        (project = { pending: new Map(), headers, waiters: new Set(), inFlight: new Set() }),
      );
    project.headers = headers;
    let fresh = 0;
    for (const key of entries.keys()) if (!project.pending.has(key) && !project.inFlight.has(key)) fresh += 1;
    this.#makeRoom(project, Math.min(fresh, this.options.maxQueuedPerProject - project.pending.size));
    const waiting = new Set<string>();
    for (const [key, text] of entries) {
      if (project.pending.has(key) || project.inFlight.has(key)) {
        waiting.add(key);
        continue;
      }
      if (project.pending.size >= this.options.maxQueuedPerProject || this.#queued >= this.options.maxQueuedTotal)
        continue;
      project.pending.set(key, text());
      this.#queued += 1;
      waiting.add(key);
    }
    this.#pump();
    if (waiting.size === 0 || signal === undefined || signal.aborted) {
      this.#forgetIfIdle(projectId, project);
      return Promise.resolve(undefined);
    }
    return new Promise((resolve) => {
      // A search that stops waiting leaves at once: its waiter held its keys (up to the project's
      // queue) until they were embedded, so a hanging endpoint let every search of a cold list add one.
      const leave = () => {
        project.waiters.delete(waiter);
        this.#forgetIfIdle(projectId, project);
        resolve(undefined);
      };
      const waiter: Waiter = {
        keys: waiting,
        failure: undefined,
        resolve: (failure) => {
          signal.removeEventListener('abort', leave);
          resolve(failure);
        },
      };
      signal.addEventListener('abort', leave, { once: true });
      project.waiters.add(waiter);
    });
  }

  /** Searches waiting for their texts (all projects). */
  get waiting(): number {
    let waiting = 0;
    for (const project of this.#projects.values()) waiting += project.waiters.size;
    return waiting;
  }

  /**
   * When the queue over all projects cannot take `wanted` more texts of `project`, takes the newest
   * texts of projects queued beyond an equal share, so that `project` gets up to its share: a few
   * projects' big lists had filled the whole queue, and no other project's list was embedded until
   * it drained. Texts taken out stay lexical until their project's next search queues them again.
   */
  #makeRoom(project: ProjectQueue, wanted: number): void {
    const { maxQueuedTotal } = this.options;
    if (wanted <= 0 || this.#queued + wanted <= maxQueuedTotal) return;
    const queues = [...this.#projects].filter(([, queue]) => queue.pending.size > 0 || queue === project);
    const share = Math.floor(maxQueuedTotal / queues.length);
    let room = Math.min(wanted, share - project.pending.size) - (maxQueuedTotal - this.#queued);
    for (const [otherId, other] of queues) {
      const excess = Math.min(other.pending.size - share, room);
      if (excess <= 0) continue;
      const taken = [...other.pending.keys()].slice(-excess);
      for (const key of taken) other.pending.delete(key);
      this.#queued -= excess;
      room -= excess;
      this.#settle(other, taken, undefined);
      this.#forgetIfIdle(otherId, other);
    }
  }

  #forgetIfIdle(projectId: string, project: ProjectQueue): void {
    if (isIdle(project) && this.#projects.get(projectId) === project) this.#projects.delete(projectId);
  }

  /** Texts waiting to be embedded (all projects). */
  get queued(): number {
    return this.#queued;
  }

  /**
   * Drops every queued text (the process is closing): one log line says how many, rather than a
   * warning with a stack for each batch (thousands of lines at one shutdown).
   */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    const dropped = this.#queued;
    for (const [projectId, project] of this.#projects) {
      const keys = [...project.pending.keys()];
      project.pending.clear();
      this.#settle(project, keys, undefined);
      this.#forgetIfIdle(projectId, project);
    }
    this.#queued = 0;
    if (dropped > 0) this.options.log?.info({ dropped }, 'background embedding stopped; queued tool texts dropped');
  }

  #pump(): void {
    if (this.#running || this.#closed) return;
    // A failing source gets no batches while it cools down; a later search's queueing pumps again.
    if (this.options.breaker && !this.options.breaker.allows()) return;
    const next = [...this.#projects].find(([, queue]) => queue.pending.size > 0);
    if (next === undefined) return;
    const [projectId, project] = next;
    // Round robin: this project goes to the back of the line.
    this.#projects.delete(projectId);
    this.#projects.set(projectId, project);
    const batch = [...project.pending].slice(0, this.embedder.batchSize);
    for (const [key] of batch) {
      project.pending.delete(key);
      project.inFlight.add(key);
    }
    this.#queued -= batch.length;
    this.#running = true;
    const timeout = abortAfter(this.options.batchTimeoutMs);
    // Fire and forget: searches never wait on a background batch. The embed call's failure is handled
    // by the rejection handler below; a throw in the bookkeeping after it would be a bug, left to surface
    // as an unhandled rejection.
    void this.embedder
      .embed(
        batch.map(([, text]) => text),
        { signal: timeout.signal, headers: project.headers, projectId, background: true },
      )
      .then(
        (vectors) => {
          this.options.breaker?.success();
          this.store(
            projectId,
            batch.map(([key]) => key),
            vectors,
          );
          return undefined;
        },
        (error: unknown) => {
          const reason = error instanceof EmbeddingError ? error.reason : 'upstream_error';
          if (reason !== 'busy') this.options.breaker?.failure();
          // Quiet once closing: the source stops under the batch in flight.
          if (!this.#closed)
            this.options.log?.warn(
              { err: error, projectId, texts: batch.length },
              'background embedding failed; those tools rank lexically',
            );
          return reason;
        },
      )
      .then((failure) => {
        timeout.dispose();
        project.inFlight.clear();
        this.#settle(
          project,
          batch.map(([key]) => key),
          failure,
        );
        this.#forgetIfIdle(projectId, project);
        this.#running = false;
        this.#pump();
      });
  }

  #settle(project: ProjectQueue, keys: string[], failure: EmbeddingFailure | undefined): void {
    for (const waiter of project.waiters) {
      for (const key of keys) {
        if (waiter.keys.delete(key) && failure) waiter.failure = failure;
      }
      if (waiter.keys.size === 0) {
        project.waiters.delete(waiter);
        waiter.resolve(waiter.failure);
      }
    }
  }
}
