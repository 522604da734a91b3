import { createHash, randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { FastifyBaseLogger } from 'fastify';
import { boundedWait } from '@catalog-search/core';
import { ThrottledWarnings } from '../logging/log-throttle.js';
import { warnIfDurableStateEvictable } from './eviction-policy.js';
import { markLocalState, redisWaitLeft } from './local-state.js';

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

/**
 * How long an operation waits for Redis is decided by what giving up costs:
 * - `cache`: a read or write of a cache whose miss costs some CPU here (vectors). REDIS_TIMEOUT_MS;
 * - `state`: state that makes the replicas one service, where giving up is visible to a caller: the
 *   shared rate limit (would admit more than the limit), a tool set (another replica answers 409), a
 *   model answer (paid for twice), what projects teach (a report refused). REDIS_STATE_TIMEOUT_MS.
 * One short wait for everything made busy replicas stop being one service (docs/operations.md#redis,
 * test/reliability/replicas-under-load.test.ts).
 */
type Wait = 'cache' | 'state';

/**
 * Every replica says it is alive this often, in one sorted set (`<prefix>replicas:`, a TTL like every
 * cache key); a member silent for three beats is gone. The count is what a replica left without Redis
 * divides the shared rate limit by (rate-limit-store.ts), so it is the last one seen, never reset.
 */
const BEAT_MS = 5000;
const FIRST_BEATS_MS = 1000;
const STATE_OPERATIONS = /^(rate-limit|tool-set-|llm-answer-|feedback-|learning-shared-)/;
const waitOf = (operation: string): Wait => (STATE_OPERATIONS.test(operation) ? 'state' : 'cache');

/** Per-operation waits, ms (config: REDIS_TIMEOUT_MS and REDIS_STATE_TIMEOUT_MS). */
interface RedisWaits {
  cacheMs: number;
  stateMs: number;
}

/** Our own wait for a command ran out (the command itself goes on, bounded by the connection's timeout). */
class WaitExpired extends Error {
  constructor(
    ms: number,
    /** The operation's whole wait ran out (not a shorter one left by the request's deadline). */
    readonly whole: boolean,
  ) {
    super(`no answer within ${ms} ms`);
  }
}

/** The command's answer, or WaitExpired after `ms` (core's bounded wait, looking once more after the poll phase). */
async function within<T>(work: Promise<T>, ms: number, whole: boolean): Promise<T> {
  const answer = await boundedWait(
    work.then((value) => ({ value })),
    { ms, afterPoll: true },
  );
  if (answer === undefined) throw new WaitExpired(ms, whole);
  return answer.value;
}

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
type CacheKind = 'llm' | 'tool-set' | 'rate-limit' | 'vector' | 'feedback-search' | 'replicas';
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
  /** `performance.now()` until which Redis is not used, per wait (after a timeout of that wait). */
  readonly #pausedUntil: Record<Wait, number> = { cache: 0, state: 0 };
  readonly #id = randomUUID();
  #replicas = 1;

  constructor(
    readonly redis: Redis,
    private readonly keyPrefix: string,
    private readonly events: SharedStoreEvents,
    log: FastifyBaseLogger,
    /** Absent: every command waits as long as the connection's commandTimeout. */
    private readonly waits?: RedisWaits,
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
      void this.#beat();
      // Once more soon: replicas started together each saw only those that had beaten before it.
      setTimeout(() => void this.#beat(), FIRST_BEATS_MS).unref();
    });
    const beat = setInterval(() => void this.#beat(), BEAT_MS).unref();
    redis.once('end', () => clearInterval(beat));
  }

  /** How many replicas share this Redis, as last seen (1 until seen). */
  get replicas(): number {
    return this.#replicas;
  }

  /** Says this replica is alive and counts the replicas that are (never rejects). */
  async #beat(): Promise<void> {
    if (!this.availableFor('replicas')) return;
    const key = this.keyPrefixOf('replicas');
    const now = Date.now();
    const answer = await this.#run('replicas', () =>
      this.redis
        .multi()
        .zadd(key, now, this.#id)
        .zremrangebyscore(key, '-inf', now - 3 * BEAT_MS)
        .pexpire(key, 3 * BEAT_MS)
        .zcard(key)
        .exec(),
    );
    const counted = answer?.[3]?.[1];
    if (typeof counted === 'number' && counted >= 1) this.#replicas = counted;
  }

  /** Key of a project's value: the project id is hashed when long, so a key stays short. */
  key(kind: SharedKind, projectId: string, id: string): string {
    return `${this.keyPrefix}${kind}:${projectTag(projectId)}:${id}`;
  }

  /** The prefix of a kind's keys, for stores that add the project themselves (rate-limit-store.ts). */
  keyPrefixOf(kind: SharedKind): string {
    return `${this.keyPrefix}${kind}:`;
  }

  /** Whether to use Redis now for `operation`: connected, and not paused after a timeout. */
  availableFor(operation: string): boolean {
    const now = performance.now();
    // A state wait that ran out means Redis is stalled: caches leave it alone too.
    const pausedUntil = Math.max(this.#pausedUntil.state, waitOf(operation) === 'cache' ? this.#pausedUntil.cache : 0);
    return this.redis.status === 'ready' && now >= pausedUntil;
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
    if (!this.availableFor(operation)) {
      this.reportFallback(operation);
      return undefined;
    }
    try {
      const waits = this.waits;
      if (!waits) return await command();
      // The operation's wait, and never past the request's deadline (local-state.ts).
      const wait = waitOf(operation) === 'state' ? waits.stateMs : waits.cacheMs;
      const left = redisWaitLeft() ?? Infinity;
      return await within(command(), Math.min(wait, left), left >= wait);
    } catch (error) {
      this.reportError(operation, error);
      return undefined;
    }
  }

  /**
   * The caller goes on without Redis because it is not available: counted (redis_fallbacks_total),
   * logged (throttled), and marked on the request (`meta.sharedState: "local"`, local-state.ts).
   */
  reportFallback(operation: string): void {
    this.events.fallback(operation);
    markLocalState();
    this.#warnings.warn(
      `redis-fallback-${operation}`,
      { operation, redisStatus: this.redis.status },
      'Redis not used (not connected, or paused after a timeout); this replica uses its own state',
    );
  }

  /** A command failed (or timed out) and the caller goes on without it. */
  reportError(operation: string, error: unknown): void {
    // ioredis rejects a command past its commandTimeout with this message (and no code).
    // Only a whole wait that ran out says Redis is stalled: a request's short deadline does not.
    if (
      (error instanceof WaitExpired && error.whole) ||
      (error instanceof Error && error.message === 'Command timed out')
    )
      this.#pausedUntil[waitOf(operation)] = performance.now() + PAUSE_AFTER_TIMEOUT_MS;
    this.events.error(operation);
    this.events.fallback(operation);
    markLocalState();
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
