import { abortAfter, boundedWait, MAX_FEEDBACK_EVENTS, type FeedbackEvent } from '@catalog-search/core';
import type { FetchLike } from './cloud-call.js';

/** One tool use to report: the search's `meta.requestId` (or its `query`), the tool, and how it went. */
export type OutcomeReport = Pick<FeedbackEvent, 'requestId' | 'query' | 'toolKey' | 'outcome'>;

export interface OutcomeReportOptions {
  /** Reports waiting to be sent at most; past it new reports are dropped (counted in `dropped`). Default 1,000. */
  maxQueued?: number;
  /** How long a report may wait for others to share its request. Default 2,000 ms. */
  flushDelayMs?: number;
  /** Budget of one report request. Default 5,000 ms. */
  timeoutMs?: number;
  /** Wait before retrying a batch the service could not take, when it sent no Retry-After. Default 5,000 ms. */
  retryDelayMs?: number;
  /** Called when a batch could not be delivered and was dropped (never throws into the caller). */
  onDropped?: (event: { reports: number; reason: string }) => void;
}

interface OutcomeReporterDeps {
  url: string;
  fetch: FetchLike;
  resolveToken: () => string | Promise<string>;
  projectId: string | undefined;
  userAgent: string | undefined;
}

const DEFAULT_MAX_QUEUED = 1000;
const DEFAULT_FLUSH_DELAY_MS = 2000;
const DEFAULT_TIMEOUT_MS = 5000;
/** A batch the service could not take (network, 429, 5xx) is tried this many times in all. */
const MAX_ATTEMPTS = 3;
/** Wait before a retry when the service gave no Retry-After. */
const RETRY_DELAY_MS = 5000;
/**
 * How long `flush` waits at most unless told: the whole retry schedule with the defaults (three
 * attempts of up to 5 s and two 5 s waits) fits; a long Retry-After does not hold an exiting router.
 */
export const DEFAULT_FLUSH_TIMEOUT_MS = 30_000;

export interface FlushOptions {
  /** The most `flush` waits, in ms (default 30,000); reports still pending then stay queued (`pending` counts them). */
  timeoutMs?: number;
}

/**
 * The router's reports of tool use (`POST /v1/catalog/feedback`), off the call path: `report` only
 * queues (bounded) and never throws; a timer sends the queue in batches of up to MAX_FEEDBACK_EVENTS,
 * one request at a time. Reports are evidence, not transactions: when the service cannot take them
 * after MAX_ATTEMPTS, or the queue is full, they are dropped and counted.
 */
export class OutcomeReporter {
  readonly #queue: Array<{ report: OutcomeReport; attempts: number }> = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #sending: Promise<void> | undefined;
  #notBefore = 0;
  /** Reports taken from the queue by the request in flight. */
  #inFlight = 0;
  /** Reports dropped so far (queue full, refused, or undeliverable). */
  dropped = 0;

  constructor(
    private readonly deps: OutcomeReporterDeps,
    private readonly options: OutcomeReportOptions = {},
  ) {}

  report(reports: OutcomeReport | readonly OutcomeReport[]): void {
    const list = Array.isArray(reports) ? reports : [reports as OutcomeReport];
    const max = this.options.maxQueued ?? DEFAULT_MAX_QUEUED;
    for (const report of list) {
      if (report === null || typeof report !== 'object' || typeof report.toolKey !== 'string') {
        this.dropped += 1;
        continue;
      }
      if (this.#queue.length >= max) {
        this.dropped += 1;
        continue;
      }
      const { requestId, query, toolKey, outcome } = report;
      this.#queue.push({
        report: {
          toolKey,
          outcome,
          ...(requestId === undefined ? {} : { requestId }),
          ...(query === undefined ? {} : { query }),
        },
        attempts: 0,
      });
    }
    this.#schedule(this.options.flushDelayMs ?? DEFAULT_FLUSH_DELAY_MS);
  }

  /**
   * Sends what is queued now and resolves once every report was delivered or given up on (after its
   * retries, on the retry schedule), or when `timeoutMs` has passed, whichever comes first. Never
   * rejects. Its waits hold a Node process open: a router that awaits it before exiting loses nothing
   * it was not told about (`onDropped`, or `pending` after the bound).
   */
  async flush(options: FlushOptions = {}): Promise<void> {
    const bound = options.timeoutMs ?? DEFAULT_FLUSH_TIMEOUT_MS;
    const until = Date.now() + (Number.isFinite(bound) && bound > 0 ? Math.min(bound, MAX_TIMER_MS) : 0);
    // What is queued goes now, not after its batching delay (nor a retry's wait: one more attempt).
    this.#notBefore = 0;
    while (this.pending > 0) {
      const left = until - Date.now();
      if (left <= 0) return;
      if (this.#sending) {
        await within(this.#sending, left);
        continue;
      }
      const wait = this.#notBefore - Date.now();
      if (wait > 0) {
        await within(undefined, Math.min(wait, left));
        continue;
      }
      if (this.#timer !== undefined) clearTimeout(this.#timer);
      this.#timer = undefined;
      await within(this.#sendAll(), left);
    }
  }

  /** Reports waiting to be sent. */
  get queued(): number {
    return this.#queue.length;
  }

  /** Reports not yet delivered nor given up on: queued, waiting for a retry, or in the request in flight. */
  get pending(): number {
    return this.#queue.length + this.#inFlight;
  }

  #schedule(delayMs: number): void {
    if (this.#timer !== undefined || this.#sending || this.#queue.length === 0) return;
    const wait = Math.max(delayMs, this.#notBefore - Date.now());
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#sendAll();
    }, wait);
    // In Node, a pending report must not keep the router's process alive.
    (this.#timer as { unref?: () => void }).unref?.();
  }

  #sendAll(): Promise<void> {
    this.#sending ??= (async () => {
      try {
        while (this.#queue.length > 0) {
          const batch = this.#queue.splice(0, MAX_FEEDBACK_EVENTS);
          this.#inFlight = batch.length;
          const sent = await this.#send(batch).finally(() => (this.#inFlight = 0));
          if (!sent) break;
        }
      } finally {
        this.#sending = undefined;
        this.#schedule(this.options.flushDelayMs ?? DEFAULT_FLUSH_DELAY_MS);
      }
    })();
    return this.#sending;
  }

  /** Sends one batch; false when it was put back for a later retry (stop sending for now). */
  async #send(batch: Array<{ report: OutcomeReport; attempts: number }>): Promise<boolean> {
    // Core's timer signal, as every bounded call of the client's: it fires whatever the collector does.
    const deadline = abortAfter(this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    let retryAfterMs: number | undefined;
    let failure: string;
    try {
      const token = await this.deps.resolveToken();
      const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      if (this.deps.projectId !== undefined) headers['x-project-id'] = this.deps.projectId;
      if (this.deps.userAgent !== undefined) headers['user-agent'] = this.deps.userAgent;
      const response = await this.deps.fetch(this.deps.url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ events: batch.map((entry) => entry.report) }),
        signal: deadline.signal,
      });
      await response.body?.cancel().catch(() => undefined);
      if (response.ok) return true;
      failure = `status ${response.status}`;
      if (response.status !== 429 && response.status < 500) {
        this.#drop(batch.length, failure);
        return true;
      }
      const seconds = Number(response.headers.get('retry-after'));
      if (Number.isFinite(seconds) && seconds > 0) retryAfterMs = Math.min(seconds * 1000, 10 * 60_000);
    } catch (error) {
      failure = error instanceof Error ? error.message : 'request failed';
    } finally {
      deadline.dispose();
    }
    const retry = batch.filter((entry) => ++entry.attempts < MAX_ATTEMPTS);
    if (retry.length < batch.length) this.#drop(batch.length - retry.length, failure);
    const room = (this.options.maxQueued ?? DEFAULT_MAX_QUEUED) - this.#queue.length;
    if (retry.length > room) this.#drop(retry.length - Math.max(room, 0), 'queue full');
    this.#queue.unshift(...retry.slice(0, Math.max(room, 0)));
    this.#notBefore = Date.now() + (retryAfterMs ?? this.options.retryDelayMs ?? RETRY_DELAY_MS);
    return false;
  }

  #drop(reports: number, reason: string): void {
    this.dropped += reports;
    try {
      this.options.onDropped?.({ reports, reason });
    } catch {
      // An observer's failure must not reach the router.
    }
  }
}

/** The longest timers wait: a longer delay fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Resolves when `work` settles or after `ms`, whichever is first (without work: after `ms`), never
 * rejecting; core's boundedWait clears the timer either way.
 */
async function within(work: Promise<unknown> | undefined, ms: number): Promise<void> {
  // Without work, a promise of its own that never settles: the wait lasts its bound, and nothing is
  // left holding it afterwards (a shared one would keep every wait's reaction).
  await boundedWait(work === undefined ? new Promise<void>(() => {}) : work.then(noop, noop), { ms });
}

const noop = (): void => undefined;
