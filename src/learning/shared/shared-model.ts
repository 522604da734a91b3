import { DESTRUCTIVE_EVIDENCE, type LearnedBoost } from '../boost.js';

/**
 * What the projects reported for one (term, tool) association: how many distinct projects last
 * reported it succeeded (pos) and failed (neg), and the sums of when they did (minutes since the
 * epoch), for the decay. A project counts once, by its latest outcome (shared-ledger.ts).
 */
export interface Aggregate {
  pos: number;
  neg: number;
  posAt: number;
  negAt: number;
  /**
   * When the successes may be used (ms since the epoch), set by the ledger once they met the
   * threshold, after the hold and the deployment's rate (shared-admission.ts); 0: they have not met it.
   * Absent: no hold nor rate (admission off, or a value written before them): used from the threshold on.
   */
  activeAt?: number;
}

/** An association's id: the term's keyed hash then the tool's (term-keys.ts), both of fixed length. */
export const associationId = (term: string, tool: string) => `${term}${tool}`;
const TERM_CHARS = 16;
/**
 * The pseudo-term every shared report also carries, so that (TOOL_USE_TERM, tool) counts the distinct
 * projects that used the tool at all, under the same k, decay and withdrawal as any association
 * (common-steps.ts). '~' is outside base64url: no keyed hash of a word can equal it.
 */
export const TOOL_USE_TERM = '~'.repeat(TERM_CHARS);

interface SharedModelOptions {
  /**
   * k (LEARNING_SHARED_MIN_PROJECTS): an outcome counts only once more than k distinct projects
   * reported it, at the association's own threshold (`draw`).
   */
  minProjects: number;
  /**
   * A keyed number in [0, 1) for an association id (term-keys.ts, TermKeys.draw): where its threshold
   * lies between k + 1 and k + thresholdSpread. Without the deployment's key nobody can compute it.
   */
  draw: (id: string) => number;
  /**
   * Thresholds lie in k + 1 … k + thresholdSpread (LEARNING_SHARED_THRESHOLD_SPREAD): k − 1 colluding
   * projects and a victim's one report are k, below every threshold, so they see nothing; k colluders
   * with a victim pass only the thresholds at k + 1 (one in thresholdSpread) and cannot tell which
   * those are (docs/privacy.md, "Colluding projects").
   */
  thresholdSpread: number;
  halfLifeMs: number;
  /** The largest boost shared learning adds (a share of FEEDBACK_MAX_BOOST: weaker than the project's own). */
  maxBoost: number;
}

/**
 * Shared learning is weaker than a project's own: other projects' requests are evidence about
 * similar requests, the project's own reports about its own (docs/ranking.md, "Shared learning").
 */
export const SHARED_BOOST_SHARE = 0.9;
/**
 * The shrink's prior, in projects: an association already needs more than k distinct projects to count at
 * all, so the shrink only tempers the least-evidenced ones (docs/ranking.md, "Shared learning").
 */
const PRIOR_PROJECTS = 1;
/**
 * A request's words that no k projects taught for any tool: one that the list's tools have weighs this
 * share of its idf against the taught ones (the request also asks for what it names, which nobody
 * taught for this tool); one that no tool of the list has (a name, a date, a value, a URL's host)
 * weighs nothing, since it cannot tell the list's tools apart. Words at full weight drowned a long
 * request's one taught word (docs/ranking.md, "Shared learning").
 */
const UNTAUGHT_LIST_WORD_WEIGHT = 0.3;
/** As own learning (project-model.ts): a term in under this share of a tool's evidence adds nothing. */
const MIN_TERM_SHARE = 0.1;
/** Approximate bytes an association takes in this mirror (two map entries, the ids, the numbers). */
export const MIRROR_BYTES_PER_ASSOCIATION = 200;

interface ToolTerms {
  /** Term → net evidence in projects (k-gated), positive only. */
  terms: Map<string, { net: number; at: number }>;
  /** The tool's evidence: its strongest term's net (a tool's reports nearly all share its key words). */
  top: number;
  topAt: number;
}

/**
 * The published shared model: only what passed k-anonymity, held by each replica and brought up
 * to date from the ledger (in process, or in Redis for every replica). A search reads only the
 * tools that share a term with it, as own learning does.
 */
export class SharedModel {
  readonly #tools = new Map<string, ToolTerms>();
  readonly #postings = new Map<string, Set<string>>();
  /** Tool → net projects that used it at all (TOOL_USE_TERM), apart from the term associations. */
  readonly #used = new Map<string, { net: number; at: number }>();
  /** Associations past their threshold waiting for their activeAt (the hold and the rate), by id. */
  readonly #waiting = new Map<string, Aggregate & { activeAt: number }>();
  /** The earliest activeAt among #waiting, and the latest time advance() saw (ms). */
  #nextDue = Number.POSITIVE_INFINITY;
  #now = 0;
  #associations = 0;

  constructor(private readonly options: SharedModelOptions) {}

  /** Associations held (each passed k), and those waiting to be used. */
  get size(): number {
    return this.#associations + this.#waiting.size;
  }

  /** Associations past their threshold that wait for their turn (the hold, the rate). */
  get waiting(): number {
    return this.#waiting.size;
  }

  /**
   * Those still waiting at `now` (ms), without bringing in the ones due (a search does that: advance),
   * and how long the last of them waits (ms; 0 when none does): the metrics read them at scrape time.
   */
  waitingAt(now: number): { associations: number; longestMs: number } {
    let associations = 0;
    let last = now;
    for (const { activeAt } of this.#waiting.values()) {
      if (activeAt <= now) continue;
      associations += 1;
      last = Math.max(last, activeAt);
    }
    return { associations, longestMs: last - now };
  }

  /**
   * Brings in the waiting associations whose time has come (`now`: ms). Called before each search
   * reads the model; costs nothing until one is due, then one pass over those waiting.
   */
  advance(now: number): void {
    this.#now = Math.max(this.#now, now);
    if (this.#nextDue > this.#now) return;
    this.#nextDue = Number.POSITIVE_INFINITY;
    for (const [id, aggregate] of this.#waiting) {
      if (aggregate.activeAt <= this.#now) {
        this.#waiting.delete(id);
        this.#apply(id, aggregate);
      } else this.#nextDue = Math.min(this.#nextDue, aggregate.activeAt);
    }
  }

  get bytes(): number {
    return 256 + this.#associations * MIRROR_BYTES_PER_ASSOCIATION;
  }

  /** The decayed count of projects that used the tool at all; 0 while fewer than k did. */
  usedBy(tool: string, now: number): number {
    const use = this.#used.get(tool);
    return use === undefined ? 0 : this.#decayed(use.net, use.at, now);
  }

  /** Whether any tool's use passed k (common-steps.ts has nothing to read otherwise). */
  get knowsUse(): boolean {
    return this.#used.size > 0;
  }

  /** An empty model with the same options: what a replica reloads into while it serves this one. */
  emptyLike(): SharedModel {
    return new SharedModel(this.options);
  }

  clear(): void {
    this.#used.clear();
    this.#tools.clear();
    this.#postings.clear();
    this.#waiting.clear();
    this.#nextDue = Number.POSITIVE_INFINITY;
    this.#associations = 0;
  }

  /**
   * An association as the ledger now holds it (undefined: gone). Only k-anonymous outcomes count, and
   * successes only from their activeAt: until then the association waits, its failures still counting.
   */
  set(id: string, aggregate: Aggregate | undefined): void {
    this.#waiting.delete(id);
    const due = aggregate?.activeAt;
    if (aggregate && due !== undefined && this.#passes(id, aggregate.pos) && !(due > 0 && due <= this.#now)) {
      // Zero means the ledger counted it under the threshold (a replica may read a value between the
      // two): never used. Otherwise it waits for its time.
      if (due > 0) {
        this.#waiting.set(id, { ...aggregate, activeAt: due });
        this.#nextDue = Math.min(this.#nextDue, due);
      }
      this.#apply(id, { ...aggregate, pos: 0, posAt: 0 });
      return;
    }
    this.#apply(id, aggregate);
  }

  #apply(id: string, aggregate: Aggregate | undefined): void {
    const term = id.slice(0, TERM_CHARS);
    const tool = id.slice(TERM_CHARS);
    const pos = aggregate && this.#passes(id, aggregate.pos) ? aggregate.pos : 0;
    const neg = aggregate && this.#passes(id, aggregate.neg) ? aggregate.neg : 0;
    // Minutes since the epoch at which the net evidence stands (the counted side's mean report time).
    const at = pos > 0 ? aggregate!.posAt / aggregate!.pos : 0;
    if (term === TOOL_USE_TERM) {
      // Common steps compare tools' use with each other, so the count stays (docs/privacy.md says so).
      const net = pos - neg;
      const held = this.#used.has(tool);
      if (net > 0) this.#used.set(tool, { net, at });
      else this.#used.delete(tool);
      this.#associations += (net > 0 ? 1 : 0) - (held ? 1 : 0);
      return;
    }
    // Past its threshold an association weighs the same however many projects said it: a boost's
    // relevance must not count them (k + 1 colluders would otherwise read a victim's say off it).
    const net = pos > neg ? this.#heldProjects : 0;
    let bag = this.#tools.get(tool);
    const held = bag?.terms.has(term) ?? false;
    if (net <= 0) {
      if (!held) return;
      bag!.terms.delete(term);
      this.#associations -= 1;
      const holders = this.#postings.get(term);
      holders?.delete(tool);
      if (holders?.size === 0) this.#postings.delete(term);
      if (bag!.terms.size === 0) this.#tools.delete(tool);
      else this.#measure(bag!);
      return;
    }
    if (bag === undefined) this.#tools.set(tool, (bag = { terms: new Map(), top: 0, topAt: 0 }));
    if (!held) {
      this.#associations += 1;
      let holders = this.#postings.get(term);
      if (holders === undefined) this.#postings.set(term, (holders = new Set()));
      holders.add(tool);
    }
    bag.terms.set(term, { net, at });
    this.#measure(bag);
  }

  /**
   * The shared boost of each tool (by its content id) for a request's hashed terms, much as own
   * learning computes it (project-model.ts): the idf-weighted share of the request's terms that the
   * tool's evidence holds (untaught terms weighed by `ofList`: UNTAUGHT_LIST_WORD_WEIGHT), shrunk by
   * n / (n + PRIOR_PROJECTS) for n decayed projects, capped at maxBoost. `ofList` (is this term a word
   * of the searched list's tools) is asked only when some tool matched.
   */
  boosts(terms: readonly string[], now: number, ofList: (term: string) => boolean): Map<string, LearnedBoost> {
    const boosts = new Map<string, LearnedBoost>();
    const unique = [...new Set(terms)];
    if (unique.length === 0 || this.#tools.size === 0) return boosts;
    const tools = this.#tools.size;
    const idf = unique.map((term) => {
      const df = this.#postings.get(term)?.size ?? 0;
      return Math.log(1 + (tools - df + 0.5) / (df + 0.5));
    });
    const matches = new Map<string, { bag: ToolTerms; match: number }>();
    unique.forEach((term, i) => {
      for (const tool of this.#postings.get(term) ?? []) {
        const bag = this.#tools.get(tool)!;
        const share = Math.min(1, bag.terms.get(term)!.net / bag.top);
        if (share < MIN_TERM_SHARE) continue;
        const entry = matches.get(tool) ?? { bag, match: 0 };
        entry.match += idf[i]! * share;
        matches.set(tool, entry);
      }
    });
    if (matches.size === 0) return boosts;
    const totalIdf = idf.reduce((sum, value, i) => {
      const term = unique[i]!;
      if (this.#postings.has(term)) return sum + value;
      return ofList(term) ? sum + value * UNTAUGHT_LIST_WORD_WEIGHT : sum;
    }, 0);
    const { maxBoost } = this.options;
    for (const [tool, { bag, match }] of matches) {
      const projects = this.#decayed(bag.top, bag.topAt, now);
      if (!(projects > 0)) continue;
      const full = maxBoost * (match / totalIdf);
      const boost = full * (projects / (projects + PRIOR_PROJECTS));
      if (!(boost > 1e-6)) continue;
      boosts.set(tool, {
        boost,
        // A tool marked destructive needs more projects for the same lift, as in own learning.
        cautiousBoost: full * (projects / (projects + PRIOR_PROJECTS * DESTRUCTIVE_EVIDENCE)),
        similarRequests: Math.max(1, Math.round(bag.top)),
        shared: true,
      });
    }
    return boosts;
  }

  /** The weight of every held association, in projects: the top of the thresholds' range. */
  get #heldProjects(): number {
    return this.options.minProjects + this.options.thresholdSpread;
  }

  /**
   * Whether `projects` reach the association's keyed threshold (k + 1 … k + thresholdSpread). The
   * HMAC is computed only inside that range (most counts are below or above it).
   */
  #passes(id: string, projects: number): boolean {
    const { minProjects, thresholdSpread } = this.options;
    if (projects <= minProjects) return false;
    if (projects >= minProjects + thresholdSpread) return true;
    return projects >= this.threshold(id);
  }

  /** The association's keyed threshold in projects, k + 1 … k + thresholdSpread (the ledgers' turns use it). */
  threshold(id: string): number {
    const { minProjects, draw, thresholdSpread } = this.options;
    return thresholdSpread === 1 ? minProjects + 1 : minProjects + 1 + Math.floor(draw(id) * thresholdSpread);
  }

  /** Projects counted at `at` (minutes since the epoch), decayed to `now` by the half-life. */
  #decayed(projects: number, at: number, now: number): number {
    return projects * 2 ** (-(now - at * 60_000) / this.options.halfLifeMs);
  }

  #measure(bag: ToolTerms): void {
    bag.top = 0;
    for (const { net, at } of bag.terms.values()) {
      if (net > bag.top) {
        bag.top = net;
        bag.topAt = at;
      }
    }
  }
}
