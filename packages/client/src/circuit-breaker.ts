// Consecutive-failure circuit breaker. Closed: every search calls the cloud. After
// `failureThreshold` failures in a row it opens: searches rank locally at once for `cooldownMs`
// (or longer when the server sent `Retry-After`). Then it is half-open: exactly one search probes
// the cloud while the others keep ranking locally; a success closes it, a failure opens it again.
//
// While open, the cloud is also probed in the background, at most every `probeIntervalMs`: the
// search that triggers the probe is answered locally at once (no search waits on it), and the
// probe's success closes the circuit. A router is thus back on the cloud within about
// `probeIntervalMs` of the service's return, not the whole cool-down (measured against the real
// service: test/client/client-recovery.test.ts). A Retry-After is honoured: no probe before it ends.
import { CatalogSearchError } from './errors.js';

export interface CircuitBreakerOptions {
  /** Consecutive failures that open the circuit. Default 3. */
  failureThreshold?: number;
  /** How long the circuit stays open before one probe. Default 30,000 ms. */
  cooldownMs?: number;
  /** Cap on a server's `Retry-After` (429/503), which opens the circuit at once for that long. Default 300,000 ms. */
  maxRetryAfterMs?: number;
  /**
   * While open, the least time between background probes of the cloud (each rides on a search that
   * is answered locally at once). Default 2,000 ms; 0 turns background probes off (only the
   * half-open probe after the cool-down).
   */
  probeIntervalMs?: number;
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
/**
 * 2 s: a returning service is found within ~2 s plus the next search, well inside the 5 s a router
 * may stay local; while the cloud refuses connections a probe costs ~1 ms, and while it hangs at most
 * one probe is in flight (it ends by the search's timeout).
 */
export const DEFAULT_PROBE_INTERVAL_MS = 2_000;

export class CircuitBreaker {
  readonly #failureThreshold: number;
  readonly #cooldownMs: number;
  readonly #maxRetryAfterMs: number;
  readonly #probeIntervalMs: number;
  readonly #now: () => number;
  #consecutiveFailures = 0;
  /** Undefined while closed; otherwise the clock time the open period ends. */
  #openUntil: number | undefined;
  #probeInFlight = false;
  /** When the last probe (foreground or background) started. */
  #lastProbeAt = -Infinity;
  /** Until when a server's Retry-After forbids any call (0: none asked). */
  #retryAfterUntil = 0;

  constructor(options: CircuitBreakerOptions = {}) {
    this.#failureThreshold = positiveInteger(options.failureThreshold ?? DEFAULT_FAILURE_THRESHOLD, 'failureThreshold');
    this.#cooldownMs = nonNegative(options.cooldownMs ?? DEFAULT_COOLDOWN_MS, 'cooldownMs');
    this.#maxRetryAfterMs = nonNegative(options.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS, 'maxRetryAfterMs');
    this.#probeIntervalMs = nonNegative(options.probeIntervalMs ?? DEFAULT_PROBE_INTERVAL_MS, 'probeIntervalMs');
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
    this.#lastProbeAt = this.#now();
    return true;
  }

  /**
   * While open (after `tryAcquire` said no): whether this search should also probe the cloud in the
   * background. At most one probe at a time, one per `probeIntervalMs`, none before a Retry-After
   * ends. The caller must then report `success` or `probeFailed`.
   */
  tryBackgroundProbe(): boolean {
    if (this.#openUntil === undefined || this.#probeInFlight || this.#probeIntervalMs === 0) return false;
    const now = this.#now();
    if (now < this.#retryAfterUntil || now - this.#lastProbeAt < this.#probeIntervalMs) return false;
    this.#probeInFlight = true;
    this.#lastProbeAt = now;
    return true;
  }

  /**
   * A background probe failed: the circuit stays open until its cool-down ends, as it was (a
   * Retry-After still opens it for that long).
   */
  probeFailed(retryAfterMs?: number): void {
    this.#consecutiveFailures += 1;
    this.#probeInFlight = false;
    if (retryAfterMs !== undefined) this.#openFor(retryAfterMs);
  }

  success(): void {
    this.#consecutiveFailures = 0;
    this.#openUntil = undefined;
    this.#probeInFlight = false;
    this.#retryAfterUntil = 0;
  }

  /** A failed cloud call. `retryAfterMs` (from 429/503) opens the circuit at once for that long. */
  failure(retryAfterMs?: number): void {
    this.#consecutiveFailures += 1;
    const wasProbe = this.#probeInFlight;
    this.#probeInFlight = false;
    if (retryAfterMs !== undefined) {
      this.#openFor(retryAfterMs);
    } else if (wasProbe || this.#consecutiveFailures >= this.#failureThreshold) {
      this.#openUntil = this.#now() + this.#cooldownMs;
      // The first background probe comes one interval after the circuit opened.
      this.#lastProbeAt = this.#now();
    }
  }

  #openFor(retryAfterMs: number): void {
    this.#openUntil = this.#now() + Math.min(retryAfterMs, this.#maxRetryAfterMs);
    this.#retryAfterUntil = this.#openUntil;
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
  if (!Number.isFinite(value) || value < 0)
    throw new CatalogSearchError(`breaker.${name} must be a finite number >= 0`);
  return value;
}
