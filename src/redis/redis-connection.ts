import { Redis } from 'ioredis';
import type { RedisConfig } from '../config/index.js';

/**
 * The one Redis connection of a process (ioredis: TLS with `rediss://`, user and password from the
 * URL, reconnection with backoff). Settings chosen so that Redis trouble never holds a search:
 * - no offline queue: while disconnected a command fails at once instead of waiting for a reconnect;
 * - `commandTimeout`: a backstop, twice the longest wait; each use waits what its operation may
 *   (REDIS_TIMEOUT_MS or REDIS_STATE_TIMEOUT_MS: shared-store.ts) and goes on without the answer;
 * - no per-request retries; the connection itself retries forever, at most every 2 s.
 * Callers treat every failure as "not shared this time" (shared-store.ts), so readiness does not
 * depend on Redis either.
 */
export function connectRedis(config: RedisConfig): Redis {
  const longestWaitMs = Math.max(config.commandTimeoutMs, config.stateTimeoutMs ?? 0);
  return new Redis(config.url, {
    enableOfflineQueue: false,
    commandTimeout: config.stateTimeoutMs === undefined ? config.commandTimeoutMs : 2 * longestWaitMs,
    maxRetriesPerRequest: 0,
    connectTimeout: Math.max(1000, config.commandTimeoutMs * 10),
    retryStrategy: (attempt) => Math.min(100 * attempt, 2000),
  });
}
