// Fair sharing of the service between projects. Counting requests is not enough: one project sending
// maximum-size searches (16 sub-queries over 5,000 tools) twice a second, well inside its request rate,
// made another project's searches wait behind it for seconds, because ranking and parsing such a request
// hold the event loop (docs/performance.md#fair-sharing-between-projects).
// So each project also has:
// - a limit on searches being worked on at once (body read, parsed, filtered, ranked), and a separate one
//   on searches waiting (on a model or an embeddings endpoint, or for a work slot): waiting costs no CPU,
//   and counting it as work refused most of a busy project's (one router, many users) concurrent
//   searches while its model hung (docs/performance.md#filtertools-rules-and-searches-waiting-on-a-model);
// - a work budget in units of CPU time (WORK_PER_CPU_MS), refilled at a steady rate: a search is charged
//   tools × sub-queries when validated (what ranking English costs), then what its ranking's CPU time
//   measured (settleWork): by count alone, a Japanese or never-seen-words request cost ten times its charge;
// - a byte budget: request bytes, which parsing and validation time grow with.
// The budgets are token buckets that may go into debt: a search is admitted while its project's buckets
// are positive and is charged what it costs once that is known: bytes from Content-Length before the
// body is read, then any bytes past it as the decompressed body is read (a chunked or compressed body
// declares fewer than parsing costs), and work after validation and again after ranking. A project in
// debt is refused before its body is parsed, so a throttled heavy request costs almost nothing. Why not a library:
// @fastify/rate-limit counts requests only, and rate-limiter-flexible's fixed windows forget a cost at
// the end of its window, so a search costlier than one window's points is either never admitted or
// admitted every window.
import { pipeline, Transform, type Readable } from 'node:stream';
import { ProblemError } from '../http/errors.js';

interface FairShareLimits {
  /** Searches one project may have being worked on at once; 0 = no limit. */
  maxInFlight: number;
  /**
   * Searches one project may have waiting at once, besides those: for a work slot (until the search's
   * deadline) or on a model or an embeddings endpoint; 0 = none wait (the work limit counts them all).
   */
  maxWaiting: number;
  /** Work units one project may use per minute (WORK_PER_CPU_MS); 0 = no limit. */
  workPerMinute: number;
  /** Request bytes one project may send per minute; 0 = no limit. */
  bytesPerMinute: number;
}

/**
 * Work units one millisecond of CPU costs, for work measured in time rather than in tools × sub-queries
 * (the `filter.tools` rules): ranking's own rate, from a warm ranking of 16 sub-queries over 5,000 tools
 * (80,000 units). Why this value: docs/performance.md#filtertools-rules-and-searches-waiting-on-a-model
 */
export const WORK_PER_CPU_MS = 320;
/** Work units of `ms` of CPU time. */
export const workOfCpu = (ms: number): number => Math.ceil(ms * WORK_PER_CPU_MS);

/** A bucket holds this many seconds of its rate: a project that was quiet may burst that much. */
const BURST_SECONDS = 10;
/** Projects whose buckets are tracked at once; the least recently seen are forgotten (a full bucket). */
const MAX_TRACKED_PROJECTS = 10_000;

/** A token bucket that may go into debt. */
class DebtBucket {
  #tokens: number;
  #at: number;

  constructor(
    private readonly perMs: number,
    private readonly capacity: number,
    now: number,
  ) {
    this.#tokens = capacity;
    this.#at = now;
  }

  /** Tokens now (negative: debt). */
  level(now: number): number {
    this.#tokens = Math.min(this.capacity, this.#tokens + (now - this.#at) * this.perMs);
    this.#at = now;
    return this.#tokens;
  }

  charge(amount: number, now: number): void {
    this.#tokens = this.level(now) - amount;
  }

  /** Milliseconds until the bucket is positive again. */
  msUntilPositive(now: number): number {
    const level = this.level(now);
    return level > 0 ? 0 : (1 - level) / this.perMs;
  }
}

interface ProjectShare {
  /** Searches holding a work slot. */
  working: number;
  /** Searches waiting: on a model or an embeddings endpoint, or in `queue`. */
  waiting: number;
  /** Searches waiting for a work slot, first in first out: each is handed the slot of a search that lets go. */
  queue: (() => void)[];
  work: DebtBucket | undefined;
  bytes: DebtBucket | undefined;
}

/** An admitted search's hold on its project's slots. */
export interface SearchSlot {
  /**
   * The search now waits on a model or an embeddings endpoint: its work slot goes to the next search
   * (it keeps the slot when its project's waiting searches are at the limit).
   */
  startWaiting(): void;
  /** The search is over (answered, failed or abandoned); idempotent. */
  finish(): void;
}

/** Which limit refused a search (a metrics label). */
type FairShareLimit = 'in_flight' | 'work' | 'bytes';

interface FairShareOptions {
  /** The clock (ms); tests pass their own. */
  now?: () => number;
  /** Told of each refusal, with the limit that refused (metrics). */
  onRefused?: (limit: FairShareLimit) => void;
}

export class FairShare {
  readonly #projects = new Map<string, ProjectShare>();
  /** Searches holding a work slot, all projects together. */
  #working = 0;
  readonly now: () => number;
  readonly #onRefused: ((limit: FairShareLimit) => void) | undefined;

  constructor(
    private readonly limits: FairShareLimits,
    options: FairShareOptions = {},
  ) {
    this.now = options.now ?? (() => performance.now());
    this.#onRefused = options.onRefused;
  }

  get enabled(): boolean {
    return this.limits.maxInFlight > 0 || this.limits.workPerMinute > 0 || this.limits.bytesPerMinute > 0;
  }

  /**
   * Admits a search of `projectId` whose body is `bytes` long (Content-Length; 0 when unknown), or
   * throws RATE_LIMITED with Retry-After. When the project's work slots are taken, the search waits for
   * one (if fewer than `maxWaiting` of its searches wait) for at most `maxWaitMs`, its body unread.
   * The slot must be finished once.
   */
  async admit(projectId: string, bytes: number, maxWaitMs: number): Promise<SearchSlot> {
    const now = this.now();
    const share = this.#share(projectId, now);
    const workWaitMs = share.work?.msUntilPositive(now) ?? 0;
    const bytesWaitMs = share.bytes?.msUntilPositive(now) ?? 0;
    const waitMs = Math.max(workWaitMs, bytesWaitMs);
    if (waitMs > 0) {
      this.#onRefused?.(workWaitMs >= bytesWaitMs ? 'work' : 'bytes');
      throw rateLimited(
        `This project has used its share of search work (ranking's CPU time and request bytes per minute); ` +
          `retry in ${Math.ceil(waitMs / 1000)} s.`,
        waitMs,
      );
    }
    const { maxInFlight, maxWaiting } = this.limits;
    if (maxInFlight > 0 && share.working >= maxInFlight) {
      if (share.waiting >= maxWaiting) {
        this.#onRefused?.('in_flight');
        throw rateLimited(
          `This project may have ${maxInFlight} searches worked on and ${maxWaiting} waiting at once; wait for one to finish.`,
          1_000,
        );
      }
      await this.#workSlot(share, maxWaitMs);
    } else {
      share.working += 1;
      this.#working += 1;
    }
    share.bytes?.charge(bytes, this.now());
    return this.#slot(share);
  }

  /** Waits in `share.queue` until a search hands over its work slot, or refuses after `maxWaitMs`. */
  async #workSlot(share: ProjectShare, maxWaitMs: number): Promise<void> {
    share.waiting += 1;
    try {
      await new Promise<void>((resolve, reject) => {
        const handOver = () => {
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          share.queue.splice(share.queue.indexOf(handOver), 1);
          this.#onRefused?.('in_flight');
          reject(
            rateLimited(
              `This project's searches took all ${this.limits.maxInFlight} work slots until this search's deadline; retry.`,
              1_000,
            ),
          );
        }, maxWaitMs);
        share.queue.push(handOver);
      });
    } finally {
      share.waiting -= 1;
    }
  }

  #slot(share: ProjectShare): SearchSlot {
    let state: 'working' | 'waiting' | 'done' = 'working';
    const releaseWork = () => {
      // The slot goes to the first search waiting for one; `working` stays as it is.
      const next = share.queue.shift();
      if (next) next();
      else {
        share.working -= 1;
        this.#working -= 1;
      }
    };
    return {
      startWaiting: () => {
        if (state !== 'working' || share.waiting >= this.limits.maxWaiting) return;
        state = 'waiting';
        share.waiting += 1;
        releaseWork();
      },
      finish: () => {
        if (state === 'working') releaseWork();
        else if (state === 'waiting') share.waiting -= 1;
        state = 'done';
      },
    };
  }

  /** Searches of projects other than `projectId` being worked on (a long ranking lets them run first). */
  workingOtherThan(projectId: string): number {
    return this.#working - (this.#projects.get(projectId)?.working ?? 0);
  }

  /**
   * The body as the parser will read it (after any decompression), charging this project's byte budget
   * for every byte past the `declared` ones already charged by `admit`. For a Fastify preParsing hook:
   * the raw length the body limit checks is passed on (`receivedEncodedLength`).
   */
  meteredBody(projectId: string, payload: Readable & { receivedEncodedLength?: number }, declared: number): Readable {
    const bytes = this.#projects.get(projectId)?.bytes;
    if (bytes === undefined) return payload;
    let received = 0;
    const now = this.now;
    const metered = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        const before = received;
        received += chunk.length;
        if (received > declared) bytes.charge(received - Math.max(before, declared), now());
        done(null, chunk);
      },
    });
    Object.defineProperty(metered, 'receivedEncodedLength', { get: () => payload.receivedEncodedLength });
    // pipeline passes an error or an early close of the request on to the parser reading `metered`.
    return pipeline(payload, metered, () => {});
  }

  /**
   * Charges an admitted search's work, once its body is validated: the estimate of its ranking (tools ×
   * sub-queries, settled later by settleWork) and the CPU time of its `filter.tools` rules (workOfCpu).
   */
  chargeWork(projectId: string, work: number): void {
    this.#projects.get(projectId)?.work?.charge(work, this.now());
  }

  /**
   * Settles an admitted search's work once it has been ranked: the `estimated` units charged at
   * validation (tools × sub-queries, chargeWork) become ranking's measured CPU time at WORK_PER_CPU_MS.
   * By count alone, Japanese sub-queries over one tool were charged the units of English ones of the
   * same size for many times their CPU (docs/performance.md#work-charged-by-cost).
   */
  settleWork(projectId: string, estimated: number, cpuMs: number): void {
    this.chargeWork(projectId, workOfCpu(cpuMs) - estimated);
  }

  #share(projectId: string, now: number): ProjectShare {
    let share = this.#projects.get(projectId);
    if (share !== undefined) {
      // Map order is recency: re-inserting keeps the least recently seen first.
      this.#projects.delete(projectId);
    } else {
      const bucket = (perMinute: number) =>
        perMinute > 0 ? new DebtBucket(perMinute / 60_000, (perMinute / 60) * BURST_SECONDS, now) : undefined;
      share = {
        working: 0,
        waiting: 0,
        queue: [],
        work: bucket(this.limits.workPerMinute),
        bytes: bucket(this.limits.bytesPerMinute),
      };
      if (this.#projects.size >= MAX_TRACKED_PROJECTS) this.#forgetOne();
    }
    this.#projects.set(projectId, share);
    return share;
  }

  /** Forgets the least recently seen project with nothing in flight (its buckets refill meanwhile anyway). */
  #forgetOne(): void {
    for (const [projectId, share] of this.#projects) {
      if (share.working === 0 && share.waiting === 0) {
        this.#projects.delete(projectId);
        return;
      }
    }
  }
}

function rateLimited(detail: string, waitMs: number): ProblemError {
  return new ProblemError('RATE_LIMITED', detail, {
    headers: { 'retry-after': String(Math.max(1, Math.ceil(waitMs / 1000))) },
  });
}
