import type { Aggregate, SharedModel } from './shared-model.js';
import { established, recordReport, standing, Turns, type Admission, type History } from './shared-admission.js';

/** One project's say on one association: the tool's outcome for a request that had the term. */
export interface Contribution {
  /** associationId(term hash, tool id). */
  id: string;
  sign: 1 | -1;
}

/**
 * The associations one project keeps a say on at most (its newest; an older one is withdrawn from
 * the counts when it goes): what makes "each project counts once" and DELETE exact, in bounded bytes.
 * A project reporting 20 requests a day of ~15 terms reaches it in about six days; its older
 * says then give way to newer ones. Fewer (three days, against a 14-day half-life) withdrew says
 * the eval's projects still needed (docs/ranking.md, "Where the rest of the gain goes"); every
 * project's says stay within LEARNING_SHARED_MAX_SAYS.
 */
export const MAX_CONTRIBUTIONS_PER_PROJECT = 2000;
/**
 * The says one report body sends at most (its newest), half of what a project keeps: a body then
 * changes at most twice this many associations (its says counted, as many older ones withdrawn), far
 * within the change list the replicas catch up by (docs/operations.md, "What a report costs Redis").
 */
export const MAX_SAYS_PER_REPORT = 1000;
/** Approximate bytes of one project's say, in process (id, sign, time, map entry). */
export const LOCAL_BYTES_PER_CONTRIBUTION = 120;
/** Approximate bytes of one counted association in process (id, four numbers, map entry). */
export const LOCAL_BYTES_PER_AGGREGATE = 160;

/**
 * Where distinct projects are counted per association: in process (this file) or in Redis for
 * every replica (shared-ledger-redis.ts). Both keep the same rules:
 * - a project has one say per association, its latest outcome: reporting again replaces it, never adds;
 * - DELETE withdraws every say of the project, so an association it was needed for falls below k;
 * - past maxAssociations, the least-evidenced associations go first (their counts are dropped: an
 *   eviction can only ever count fewer projects, never more).
 */
export interface SharedLedger {
  /**
   * Counts a project's says; false when Redis could not take them (the report is then refused with
   * 503 and sent again: a say replaces the project's earlier one, so counting it twice is harmless).
   */
  contribute(projectId: string, contributions: readonly Contribution[], now: number): Promise<boolean>;
  /** Withdraws every say of the project and forgets its history: 'done', or why not. */
  withdraw(projectId: string): Promise<WithdrawResult>;
  /**
   * The published model, up to date with the ledger; undefined when that cannot be confirmed (Redis:
   * not reached, or a DELETE not yet caught up with), and the search then goes without shared learning.
   */
  model(): Promise<SharedModel | undefined>;
  /**
   * Whether the last read left the model out because a DELETE withdrew something since this replica
   * read it, and it is reading the model again (Redis only): those searches answer
   * `meta.sharedLearning: "reloading"`.
   */
  readonly withheld?: boolean;
  /** The model this replica holds now, as last read (no Redis call): what the metrics count. */
  readonly held: SharedModel;
}

/**
 * What a DELETE of a project's shared say came to: done, Redis unreachable, or the project's says
 * evicted by Redis alone (allkeys-lru), so what it said can no longer be found and withdrawn.
 */
export type WithdrawResult = 'done' | 'unreachable' | 'evicted';

/** Projects' histories kept in process at most, the lowest standing first out (shared-learning.ts may lower it). */
export const MAX_LOCAL_HISTORIES = 100_000;
/** Approximate bytes of one project's history in process (the project id, three numbers, map entry). */
export const LOCAL_BYTES_PER_HISTORY = 150;

interface Say {
  sign: 1 | -1;
  /** Minutes since the epoch. */
  at: number;
}

/** The ledger in this process (no REDIS_URL), bounded in bytes by its own accounting. */
export class LocalLedger implements SharedLedger {
  readonly #aggregates = new Map<string, Aggregate>();
  /** Per project, its says oldest first; projects in order of their last report (least recent first). */
  readonly #says = new Map<string, Map<string, Say>>();
  #sayCount = 0;
  /** With the admission rules (shared-admission.ts): each project's history, and the turns. */
  readonly #histories = new Map<string, History>();
  readonly #turns: Turns | undefined;

  constructor(
    private readonly published: SharedModel,
    private readonly limits: {
      maxAssociations: number;
      maxContributions: number;
      admission?: Admission | undefined;
      /** Projects' histories kept at most (default MAX_LOCAL_HISTORIES). */
      maxHistories?: number;
    },
  ) {
    this.#turns = limits.admission ? new Turns(limits.admission) : undefined;
  }

  async contribute(projectId: string, contributions: readonly Contribution[], now: number): Promise<boolean> {
    const { admission } = this.limits;
    if (admission) {
      const history = recordReport(this.#histories.get(projectId), now);
      this.#histories.set(projectId, history);
      if (this.#histories.size > this.#maxHistories) this.#dropLowestHistories();
      // Until the project has a history, its reports teach only itself.
      if (!established(history, now, admission)) return true;
    }
    const at = Math.floor(now / 60_000);
    let says = this.#says.get(projectId);
    if (says) this.#says.delete(projectId); // re-inserted last: most recent reporter
    says ??= new Map();
    this.#says.set(projectId, says);
    for (const { id, sign } of contributions) {
      const before = says.get(id);
      // Saying again what it said only moves the say's time: the count never dips (a threshold met
      // stays met, keeping its turn).
      if (before?.sign === sign) {
        says.delete(id);
        this.#retime(id, sign, before.at, at);
        says.set(id, { sign, at });
        continue;
      }
      if (before) this.#withdrawSay(says, id, before);
      this.#count(id, sign, at, +1, now);
      says.set(id, { sign, at });
      this.#sayCount += 1;
      while (says.size > MAX_CONTRIBUTIONS_PER_PROJECT) this.#withdrawOldest(says);
    }
    if (this.#aggregates.size > this.limits.maxAssociations) this.#evictLeastEvidenced();
    // Deployment-wide: says on associations evicted meanwhile count nothing and go first (a flood of
    // new projects must not push out the says that hold real evidence), then the least recent
    // reporter's oldest.
    if (this.#sayCount > this.limits.maxContributions) this.#dropDeadSays();
    while (this.#sayCount > this.limits.maxContributions) {
      const [oldestProject, oldest] = this.#says.entries().next().value!;
      this.#withdrawOldest(oldest);
      if (oldest.size === 0) this.#says.delete(oldestProject);
    }
    return true;
  }

  async withdraw(projectId: string): Promise<WithdrawResult> {
    this.#histories.delete(projectId);
    const says = this.#says.get(projectId);
    if (!says) return 'done';
    for (const [id, say] of [...says]) this.#withdrawSay(says, id, say);
    this.#says.delete(projectId);
    return 'done';
  }

  get #maxHistories(): number {
    return this.limits.maxHistories ?? MAX_LOCAL_HISTORIES;
  }

  #dropLowestHistories(): void {
    const sorted = [...this.#histories].sort((a, b) => standing(a[1]) - standing(b[1]));
    for (const [projectId] of sorted.slice(0, sorted.length - Math.floor(this.#maxHistories * 0.9))) {
      this.#histories.delete(projectId);
    }
  }

  async model(): Promise<SharedModel | undefined> {
    return this.published;
  }

  get held(): SharedModel {
    return this.published;
  }

  /** Bytes held at most: the counts, the says and the histories, by their bounds. */
  get bytes(): number {
    return (
      this.#aggregates.size * LOCAL_BYTES_PER_AGGREGATE +
      this.#sayCount * LOCAL_BYTES_PER_CONTRIBUTION +
      this.#histories.size * LOCAL_BYTES_PER_HISTORY
    );
  }

  #dropDeadSays(): void {
    for (const [projectId, says] of this.#says) {
      for (const id of says.keys()) {
        if (this.#aggregates.has(id)) continue;
        says.delete(id);
        this.#sayCount -= 1;
      }
      if (says.size === 0) this.#says.delete(projectId);
    }
  }

  #withdrawOldest(says: Map<string, Say>): void {
    const [id, say] = says.entries().next().value!;
    this.#withdrawSay(says, id, say);
  }

  #withdrawSay(says: Map<string, Say>, id: string, say: Say): void {
    says.delete(id);
    this.#sayCount -= 1;
    this.#count(id, say.sign, say.at, -1);
  }

  #retime(id: string, sign: 1 | -1, from: number, to: number): void {
    const aggregate = this.#aggregates.get(id);
    if (aggregate === undefined) return;
    if (sign > 0) aggregate.posAt += to - from;
    else aggregate.negAt += to - from;
    this.published.set(id, aggregate);
  }

  /** `now`: when a say is added (an association that newly meets its threshold then gets its turn). */
  #count(id: string, sign: 1 | -1, at: number, delta: 1 | -1, now = 0): void {
    let aggregate = this.#aggregates.get(id);
    // Evicted meanwhile: its counts are gone, and withdrawing from nothing must not go below zero.
    if (aggregate === undefined && delta < 0) return;
    aggregate ??= { pos: 0, neg: 0, posAt: 0, negAt: 0 };
    if (sign > 0) {
      aggregate.pos += delta;
      aggregate.posAt += delta * at;
    } else {
      aggregate.neg += delta;
      aggregate.negAt += delta * at;
    }
    if (aggregate.pos <= 0 && aggregate.neg <= 0) {
      this.#aggregates.delete(id);
      this.published.set(id, undefined);
      return;
    }
    if (aggregate.pos < 0) aggregate.pos = aggregate.posAt = 0;
    if (aggregate.neg < 0) aggregate.neg = aggregate.negAt = 0;
    this.#turns?.schedule(id, aggregate, now);
    this.#aggregates.set(id, aggregate);
    this.published.set(id, aggregate);
  }

  /** Down to 90 % of the bound at once (a sort per eviction would cost a flood n log n each report). */
  #evictLeastEvidenced(): void {
    const keep = Math.floor(this.limits.maxAssociations * 0.9);
    const sorted = [...this.#aggregates].sort((a, b) => a[1].pos + a[1].neg - (b[1].pos + b[1].neg));
    for (const [id] of sorted.slice(0, sorted.length - keep)) {
      this.#aggregates.delete(id);
      this.published.set(id, undefined);
    }
  }
}
