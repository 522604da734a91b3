import type { FastifyBaseLogger } from 'fastify';

/**
 * Logs a recurring problem at most once per `intervalMs` per kind, with the number of repeats left
 * out since the last line: a Redis or model outage must show in the logs without flooding them
 * (at 600 searches a minute, one line per failure would be 10 a second).
 */
export class ThrottledWarnings {
  readonly #last = new Map<string, { at: number; suppressed: number }>();

  constructor(
    private readonly log: FastifyBaseLogger,
    private readonly intervalMs = 10_000,
  ) {}

  warn(kind: string, fields: Record<string, unknown>, message: string): void {
    const now = Date.now();
    const seen = this.#last.get(kind);
    if (seen && now - seen.at < this.intervalMs) {
      seen.suppressed += 1;
      return;
    }
    // A fixed set of kinds in practice (operation names, failure causes); bounded all the same.
    if (!seen && this.#last.size >= 256) this.#last.clear();
    this.log.warn({ ...fields, ...(seen?.suppressed ? { suppressed: seen.suppressed } : {}) }, message);
    this.#last.set(kind, { at: now, suppressed: 0 });
  }
}
