import type { Aggregate, SharedModel } from './shared-model.js';

/** One project's say on one association: the tool's outcome for a request that had the term. */
export interface Contribution {
  /** associationId(term hash, tool id). */
  id: string;
  sign: 1 | -1;
}

/**
 * The associations one project keeps a say on at most (its newest; an older one is withdrawn from
 * the counts when it goes): what makes "each project counts once" and DELETE exact, in bounded bytes.
 * A project reporting 20 requests a day of ~15 terms reaches it in about three days; its older
 * says then give way to newer ones.
 */
export const MAX_CONTRIBUTIONS_PER_PROJECT = 1000;
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
  /** Withdraws every say of the project; false when Redis could not be reached. */
  withdraw(projectId: string): Promise<boolean>;
  /**
   * The published model, up to date with the ledger; undefined when that cannot be confirmed (Redis:
   * not reached, or a DELETE not yet caught up with), and the search then goes without shared learning.
   */
  model(): Promise<SharedModel | undefined>;
}

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

  constructor(
    private readonly published: SharedModel,
    private readonly limits: { maxAssociations: number; maxContributions: number },
  ) {}

  async contribute(projectId: string, contributions: readonly Contribution[], now: number): Promise<boolean> {
    const at = Math.floor(now / 60_000);
    let says = this.#says.get(projectId);
    if (says) this.#says.delete(projectId); // re-inserted last: most recent reporter
    says ??= new Map();
    this.#says.set(projectId, says);
    for (const { id, sign } of contributions) {
      const before = says.get(id);
      if (before) this.#withdrawSay(says, id, before);
      this.#count(id, sign, at, +1);
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

  async withdraw(projectId: string): Promise<boolean> {
    const says = this.#says.get(projectId);
    if (!says) return true;
    for (const [id, say] of [...says]) this.#withdrawSay(says, id, say);
    this.#says.delete(projectId);
    return true;
  }

  async model(): Promise<SharedModel | undefined> {
    return this.published;
  }

  /** Bytes held at most: the counts and the says, by their bounds. */
  get bytes(): number {
    return this.#aggregates.size * LOCAL_BYTES_PER_AGGREGATE + this.#sayCount * LOCAL_BYTES_PER_CONTRIBUTION;
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

  #count(id: string, sign: 1 | -1, at: number, delta: 1 | -1): void {
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
