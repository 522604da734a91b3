import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { FastifyBaseLogger } from 'fastify';
import { ThrottledWarnings } from '../logging/log-throttle.js';
import { warnIfDurableStateEvictable } from './eviction-policy.js';

/** What the store reports, for metrics (plugins/metrics.ts). */
interface SharedStoreEvents {
  /** A command failed or timed out. */
  error(operation: string): void;
  /** The caller went on without Redis (failed, timed out, or not connected). */
  fallback(operation: string): void;
}

/**
 * After a command times out, Redis is left alone this long (every use takes its in-process path at
 * once), then the next command tries it again. Without the pause a Redis that stops answering cost
 * each search one timeout per Redis use (rate limit, tool set, query and tool vectors, LLM answer); with
 * it one search pays one (test/redis/slow-redis.test.ts; figures: docs/operations.md#redis).
 */
const PAUSE_AFTER_TIMEOUT_MS = 1000;

/*
 * The kinds of value kept, one key space each, and the one rule that decides a key's TTL:
 * - a cache (what a project gets back by sending its request again: a list, an answer, a vector, a
 *   count) is written with a TTL;
 * - durable state (what a project cannot get back: what it taught, and what projects taught together)
 *   is written without one.
 * Redis as shipped evicts with `volatile-lru`, among keys with a TTL only, so no project's caches can
 * push out another project's durable state (docs/operations.md#redis; eviction-policy.ts warns when
 * the policy would).
 */
type CacheKind = 'llm' | 'tool-set' | 'rate-limit' | 'vector' | 'feedback-search';
/** Kinds kept without a TTL (see above). */
export const DURABLE_KINDS = ['feedback', 'learning-shared'] as const;
type SharedKind = CacheKind | (typeof DURABLE_KINDS)[number];

/**
 * Redis as the replicas' shared memory, always optional: every method resolves (never rejects), and
 * a value that cannot be read or written is reported as absent, so the caller takes its in-process
 * path. Every key is `<prefix><kind>:<project>:<id>`, so nothing is shared across projects; every
 * write has a size limit, and a TTL unless its kind is durable (above).
 */
export class SharedStore {
  readonly #warnings: ThrottledWarnings;
  /** `performance.now()` until which Redis is not used (after a timeout). */
  #pausedUntil = 0;

  constructor(
    readonly redis: Redis,
    private readonly keyPrefix: string,
    private readonly events: SharedStoreEvents,
    log: FastifyBaseLogger,
  ) {
    this.#warnings = new ThrottledWarnings(log);
    // ioredis emits connection errors as events: without a listener they would crash the process.
    redis.on('error', (error: NodeJS.ErrnoException) => {
      this.#warnings.warn(
        'redis-connection',
        { err: { message: error.message, code: error.code } },
        'Redis connection error; searches use in-process state until it is back',
      );
    });
    redis.on('ready', () => {
      log.info('Redis connected: state is shared with the other replicas');
      // Fire and forget: a warning at most, and it never rejects.
      void warnIfDurableStateEvictable(redis, log);
    });
  }

  /** Key of a project's value: the project id is hashed when long, so a key stays short. */
  key(kind: SharedKind, projectId: string, id: string): string {
    return `${this.keyPrefix}${kind}:${projectTag(projectId)}:${id}`;
  }

  /** The prefix of a kind's keys, for stores that add the project themselves (rate-limit-store.ts). */
  keyPrefixOf(kind: SharedKind): string {
    return `${this.keyPrefix}${kind}:`;
  }

  /** Whether to use Redis now: connected, and not paused after a timeout. */
  get available(): boolean {
    return this.redis.status === 'ready' && performance.now() >= this.#pausedUntil;
  }

  async get(operation: string, key: string): Promise<string | undefined> {
    const value = await this.#run(operation, () => this.redis.get(key));
    return value ?? undefined;
  }

  /** Writes unless `value` is longer than `maxBytes`; resolves whether it was written. */
  async set(operation: string, key: string, value: string, ttlMs: number, maxBytes: number): Promise<boolean> {
    if (Buffer.byteLength(value) > maxBytes) return false;
    return (
      (await this.#run(operation, () => this.redis.set(key, value, 'PX', Math.max(1, Math.round(ttlMs))))) === 'OK'
    );
  }

  /** Sets a key's TTL anew; resolves whether the key was there (false also when Redis failed). */
  async renew(operation: string, key: string, ttlMs: number): Promise<boolean> {
    return (await this.#run(operation, () => this.redis.pexpire(key, Math.max(1, Math.round(ttlMs))))) === 1;
  }

  /** Values as bytes, one per key in order (undefined where absent, and all of them when Redis fails): one MGET. */
  async getBuffers(operation: string, keys: readonly string[]): Promise<Array<Buffer | undefined>> {
    if (keys.length === 0) return [];
    const values = await this.#run(operation, () => this.redis.mgetBuffer(...keys));
    return keys.map((_, i) => values?.[i] ?? undefined);
  }

  /** Writes each value with the TTL in one round trip (a pipeline), leaving out values over `maxBytes`. */
  async setBuffers(
    operation: string,
    entries: ReadonlyArray<readonly [key: string, value: Buffer]>,
    ttlMs: number,
    maxBytes: number,
  ): Promise<boolean> {
    const fitting = entries.filter(([, value]) => value.byteLength <= maxBytes);
    if (fitting.length === 0) return false;
    const px = Math.max(1, Math.round(ttlMs));
    const written = await this.#run(operation, async () => {
      const pipeline = this.redis.pipeline();
      for (const [key, value] of fitting) pipeline.set(key, value, 'PX', px);
      const failed = (await pipeline.exec())?.find(([error]) => error !== null);
      if (failed) throw failed[0];
      return true;
    });
    return written === true;
  }

  /** Runs other commands (a script, a transaction) as the methods above do: undefined when Redis fails or is away. */
  async command<T>(operation: string, command: (redis: Redis) => Promise<T>): Promise<T | undefined> {
    return this.#run(operation, () => command(this.redis));
  }

  /** Runs a command; on any failure reports it and resolves undefined. */
  async #run<T>(operation: string, command: () => Promise<T>): Promise<T | undefined> {
    if (!this.available) {
      this.reportFallback(operation);
      return undefined;
    }
    try {
      return await command();
    } catch (error) {
      this.reportError(operation, error);
      return undefined;
    }
  }

  /** The caller goes on without Redis because it is not available. */
  reportFallback(operation: string): void {
    this.events.fallback(operation);
  }

  /** A command failed (or timed out) and the caller goes on without it. */
  reportError(operation: string, error: unknown): void {
    // ioredis rejects a command past its commandTimeout with this message (and no code).
    if (error instanceof Error && error.message === 'Command timed out')
      this.#pausedUntil = performance.now() + PAUSE_AFTER_TIMEOUT_MS;
    this.events.error(operation);
    this.events.fallback(operation);
    const { message, code } = (error ?? {}) as NodeJS.ErrnoException;
    this.#warnings.warn(
      `redis-${operation}`,
      { operation, err: { message, code } },
      'Redis command failed; using the in-process path',
    );
  }
}

/**
 * A project id as it appears in keys: itself when short and plain, else `h-` and its SHA-256. A plain
 * id that starts with `h-` is hashed too, or the project named `h-<hash of X>` would share X's keys.
 */
export function projectTag(projectId: string): string {
  return /^(?!h-)[A-Za-z0-9_.-]{1,64}$/.test(projectId)
    ? projectId
    : `h-${createHash('sha256').update(projectId).digest('base64url')}`;
}
