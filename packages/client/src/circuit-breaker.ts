import { CatalogSearchError } from './errors.js';

/**
 * Consecutive-failure circuit breaker. Closed: every search calls the cloud. After
 * `failureThreshold` failures in a row it opens: searches rank locally at once for `cooldownMs`
 * (or longer when the server sent `Retry-After`). Then it is half-open: exactly one search probes
 * the cloud while the others keep ranking locally; a success closes it, a failure opens it again.
 */

export interface CircuitBreakerOptions {
  /** Consecutive failures that open the circuit. Default 3. */
  failureThreshold?: number;
  /** How long the circuit stays open before one probe. Default 30,000 ms. */
  cooldownMs?: number;
  /** Cap on a server's `Retry-After` (429/503), which opens the circuit at once for that long. Default 300,000 ms. */
  maxRetryAfterMs?: number;
  /** Clock in ms; tests inject one. Default `Date.now`. */
  now?: () => number;
}

export type CircuitState = 'closed' | 'open' | 'half_open';

export interface CircuitSnapshot {
  state: CircuitState;
  consecutiveFailures: number;
  /** When open: the clock time after which the next search probes the cloud. */
  retryAt?: number;
}

export const DEFAULT_FAILURE_THRESHOLD = 3;
export const DEFAULT_COOLDOWN_MS = 30_000;
export const DEFAULT_MAX_RETRY_AFTER_MS = 300_000;

export class CircuitBreaker {
  readonly #failureThreshold: number;
  readonly #cooldownMs: number;
  readonly #maxRetryAfterMs: number;
  readonly #now: () => number;
  #consecutiveFailures = 0;
  /** Undefined while closed; otherwise the clock time the open period ends. */
  #openUntil: number | undefined;
  #probeInFlight = false;

  constructor(options: CircuitBreakerOptions = {}) {
    this.#failureThreshold = positiveInteger(options.failureThreshold ?? DEFAULT_FAILURE_THRESHOLD, 'failureThreshold');
    this.#cooldownMs = nonNegative(options.cooldownMs ?? DEFAULT_COOLDOWN_MS, 'cooldownMs');
    this.#maxRetryAfterMs = nonNegative(options.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS, 'maxRetryAfterMs');
    this.#now = options.now ?? Date.now;
  }

  /** Current clock reading (so callers compute `retryAt` deltas on the same clock). */
  now(): number {
    return this.#now();
  }

  /**
   * Whether this search may call the cloud. While half-open only the first caller gets `true`
   * (the probe); it must then report `success`, `failure` or `abandon`.
   */
  tryAcquire(): boolean {
    if (this.#openUntil === undefined) return true;
    if (this.#now() < this.#openUntil || this.#probeInFlight) return false;
    this.#probeInFlight = true;
    return true;
  }

  success(): void {
    this.#consecutiveFailures = 0;
    this.#openUntil = undefined;
    this.#probeInFlight = false;
  }

  /** A failed cloud call. `retryAfterMs` (from 429/503) opens the circuit at once for that long. */
  failure(retryAfterMs?: number): void {
    this.#consecutiveFailures += 1;
    const wasProbe = this.#probeInFlight;
    this.#probeInFlight = false;
    if (retryAfterMs !== undefined) {
      this.#openUntil = this.#now() + Math.min(retryAfterMs, this.#maxRetryAfterMs);
    } else if (wasProbe || this.#consecutiveFailures >= this.#failureThreshold) {
      this.#openUntil = this.#now() + this.#cooldownMs;
    }
  }

  /** The call ended without telling us anything about the cloud (the caller aborted): free the probe slot. */
  abandon(): void {
    this.#probeInFlight = false;
  }

  snapshot(): CircuitSnapshot {
    const consecutiveFailures = this.#consecutiveFailures;
    if (this.#openUntil === undefined) return { state: 'closed', consecutiveFailures };
    const state = this.#probeInFlight || this.#now() >= this.#openUntil ? 'half_open' : 'open';
    return { state, consecutiveFailures, retryAt: this.#openUntil };
  }
}

function positiveInteger(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1) throw new CatalogSearchError(`breaker.${name} must be an integer >= 1`);
  return value;
}

function nonNegative(value: number, name: string): number {
  if (!Number.isFinite(value) || value < 0) throw new CatalogSearchError(`breaker.${name} must be a finite number >= 0`);
  return value;
}
