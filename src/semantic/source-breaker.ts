/**
 * Skips a failing embeddings source for a while, so that it costs searches nothing while it is down.
 *
 * Closed: calls go through. After `threshold` failures in a row (a call that failed or timed out, or an
 * endpoint's request vector that was not ready within its bound) it opens for `coolDownMs`: no call is made, and
 * searches answer lexically at lexical speed (`meta.semantic: "unavailable"`). Then one call is let
 * through as a probe: a success closes it, a failure opens it again for twice as long (up to
 * `maxCoolDownMs`). Without it a hanging endpoint cost every search its whole wait, for as long as it
 * hung (docs/performance.md#a-failing-embeddings-source).
 *
 * Hand-written rather than a circuit-breaker library: the outcomes it counts are not only calls (a
 * request vector that missed its bound is a failure even though the call goes on), and it needs no
 * timers of its own (it compares times when asked).
 */
export interface SourceBreakerOptions {
  /** Failures in a row that open it. */
  threshold: number;
  /** The first cool-down. */
  coolDownMs: number;
  /** The longest cool-down after failed probes. */
  maxCoolDownMs: number;
  now?: () => number;
  /** Told when it opens (for a log line) and closes again. */
  onChange?: (state: 'open' | 'closed', detail: { failures: number; coolDownMs: number }) => void;
}

export class SourceBreaker {
  #failures = 0;
  #coolDownMs: number;
  /** When the current cool-down ends; undefined while closed. */
  #openUntil: number | undefined;
  #probing = false;
  readonly #now: () => number;

  constructor(private readonly options: SourceBreakerOptions) {
    this.#coolDownMs = options.coolDownMs;
    this.#now = options.now ?? (() => performance.now());
  }

  /** Whether a call may be made now. Past a cool-down the first caller gets the probe; the rest wait for its outcome. */
  allows(): boolean {
    if (this.#openUntil === undefined) return true;
    if (this.#probing || this.#now() < this.#openUntil) return false;
    this.#probing = true;
    return true;
  }

  get open(): boolean {
    return this.#openUntil !== undefined;
  }

  success(): void {
    this.#failures = 0;
    if (this.#openUntil === undefined) return;
    this.#openUntil = undefined;
    this.#probing = false;
    this.#coolDownMs = this.options.coolDownMs;
    this.options.onChange?.('closed', { failures: 0, coolDownMs: 0 });
  }

  failure(): void {
    this.#failures += 1;
    if (this.#openUntil !== undefined) {
      // A failed probe: wait twice as long before the next one. Failures of calls made before the
      // breaker opened change nothing.
      if (!this.#probing) return;
      this.#probing = false;
      this.#coolDownMs = Math.min(this.#coolDownMs * 2, this.options.maxCoolDownMs);
    } else if (this.#failures < this.options.threshold) {
      return;
    }
    this.#openUntil = this.#now() + this.#coolDownMs;
    this.options.onChange?.('open', { failures: this.#failures, coolDownMs: this.#coolDownMs });
  }
}
