// What a project taught about its tools: per tool, a decayed bag of the words of the requests it
// served (docs/ranking.md, "Learning from use", has the design and the measurements). It is a pure fold of the
// project's report log (report-log.ts), so every replica that reads the same log learns the same.

import { DESTRUCTIVE_EVIDENCE, type LearnedBoost } from '../boost.js';

/** One report as the log keeps it: when, which tool, how much it counts, and the request's words. */
export interface ReportedUse {
  /** Milliseconds since the epoch. */
  at: number;
  toolKey: string;
  /** Signed: positive for `succeeded` / `selected`, negative for `failed` (report-events.ts). */
  weight: number;
  /** The request's index terms (core's tokenizer), each once. */
  terms: readonly string[];
  /**
   * Which search the report is about (report-events.ts, searchOf): a tool counts once per search,
   * however often it is reported for it. Absent in logs written before it existed: each counts then.
   */
  search?: string;
}

export interface ProjectModelOptions {
  /** Evidence halves every this many ms (FEEDBACK_HALF_LIFE_DAYS). */
  halfLifeMs: number;
  /** Shrinkage: a tool with n reports (decayed) gets n / (n + priorReports) of its boost (FEEDBACK_MIN_REPORTS). */
  priorReports: number;
  /** The largest learned boost, in relevance (0–1) added to the lexical relevance (FEEDBACK_MAX_BOOST). */
  maxBoost: number;
}

/**
 * A tool's bag: terms → weight, and the weight of all its reports. Weights are stored scaled by
 * 2^((at − origin) / halfLife), so an older event need not be touched when a newer one arrives: the
 * decay of the whole bag is one factor at read time.
 */
interface ToolBag {
  terms: Map<string, number>;
  /** Signed sum of event weights (scaled). */
  reports: number;
  /** Sum of positive event weights (scaled): the denominator of a term's share. */
  positive: number;
  /** What each search reported of the tool counts (its weight, and scaled as added): one entry a search. */
  searches: Map<string, { weight: number; scaled: number }>;
}

/**
 * Words one tool's bag keeps at most (the heaviest; the rest dropped when it grows past it). A
 * ToolLens tool's ~5 reported requests hold ~60 distinct terms; 256 keeps all of that with room.
 */
const MAX_TERMS_PER_TOOL = 256;
/**
 * Terms in fewer than this share of a tool's reports add nothing: one stray report in ten is noise.
 * Swept 0.1–0.3 (eval --feedback): 0.1 gained most on ToolLens and lost nothing elsewhere (figures:
 * docs/ranking.md#learning-from-use).
 */
const MIN_TERM_SHARE = 0.1;

export class ProjectModel {
  readonly #tools = new Map<string, ToolBag>();
  /**
   * The tools whose bag holds each term (kept as bags change), so a search reads only the bags that
   * share a word with it: looking every bag up for every word cost as much as the lexical ranking
   * itself (docs/performance.md#learning-from-use-npm-run-bench----feedback).
   */
  readonly #postings = new Map<string, Set<string>>();
  #origin: number | undefined;
  #entries = 0;
  #counted = 0;

  constructor(private readonly options: ProjectModelOptions) {}

  /** Tools with a bag. */
  get size(): number {
    return this.#tools.size;
  }

  /** Approximate bytes held (terms two bytes a character, ~48 bytes a map entry), for the memory budget. */
  get bytes(): number {
    // An entry is its number in the tool's map, its posting (a Set per new term) and its term string (a
    // slice that keeps its HMAC alive): figures measured against the heap, so that a flood of reports
    // cannot hold more than the budget counts (docs/performance.md#learnings-bytes-in-the-memory-budget).
    return 256 + this.#entries * 320 + this.#tools.size * 400 + this.#counted * 200;
  }

  /**
   * Folds one report in. A tool counts once per search: a report of a search already counted for the
   * tool replaces the earlier one when it says something else (`failed` after `succeeded`, `succeeded`
   * after `selected`) and is ignored otherwise (a repeat, or a `selected` after a `succeeded`), so a
   * tool's evidence is the number of distinct searches it served, not of reports.
   */
  add(event: ReportedUse): void {
    if (!(event.weight !== 0) || !Number.isFinite(event.at)) return;
    this.#origin ??= event.at;
    const scaled = event.weight * 2 ** ((event.at - this.#origin) / this.options.halfLifeMs);
    if (!Number.isFinite(scaled)) return;
    let bag = this.#tools.get(event.toolKey);
    const counted = event.search === undefined ? undefined : bag?.searches.get(event.search);
    if (counted && (event.weight === counted.weight || (event.weight > 0 && counted.weight > event.weight))) return;
    if (bag === undefined) {
      if (scaled <= 0) return; // a failure of a tool that never worked teaches nothing to rank by
      bag = { terms: new Map(), reports: 0, positive: 0, searches: new Map() };
      this.#tools.set(event.toolKey, bag);
    }
    if (event.search !== undefined) {
      if (counted === undefined) this.#counted += 1;
      bag.searches.set(event.search, { weight: event.weight, scaled });
    }
    const before = counted?.scaled ?? 0;
    this.#fold(bag, event, scaled - before, Math.max(0, scaled) - Math.max(0, before));
  }

  /** Adds a signed (scaled) weight to a tool's report count and to each of the request's words. */
  #fold(bag: ToolBag, event: ReportedUse, scaled: number, positive: number): void {
    bag.reports += scaled;
    bag.positive = Math.max(0, bag.positive + positive);
    for (const term of event.terms) {
      const before = bag.terms.get(term);
      const after = (before ?? 0) + scaled;
      if (after > 0) {
        if (before === undefined) this.#post(term, event.toolKey);
        bag.terms.set(term, after);
      } else if (before !== undefined) {
        bag.terms.delete(term);
        this.#unpost(term, event.toolKey);
      }
    }
    if (bag.terms.size > MAX_TERMS_PER_TOOL) this.#keepHeaviest(bag, event.toolKey);
    if (bag.reports <= 0 && bag.terms.size === 0) {
      this.#tools.delete(event.toolKey);
      this.#counted -= bag.searches.size;
    }
  }

  /**
   * The learned boost of each tool for a request's terms (only tools with one > 0). A tool's match
   * is the idf-weighted share of the request's words that its past requests used (a term counts
   * by the share of the tool's reports that had it, from MIN_TERM_SHARE up); the boost is that match
   * times n / (n + priorReports) times maxBoost, n its decayed report weight (one a search at most);
   * the cautious boost has priorReports × DESTRUCTIVE_EVIDENCE instead.
   */
  boosts(queryTerms: readonly string[], now: number): Map<string, LearnedBoost> {
    const boosts = new Map<string, LearnedBoost>();
    const terms = [...new Set(queryTerms)];
    if (terms.length === 0 || this.#tools.size === 0 || this.#origin === undefined) return boosts;
    const tools = this.#tools.size;
    const idf = terms.map((term) => {
      const df = this.#postings.get(term)?.size ?? 0;
      return Math.log(1 + (tools - df + 0.5) / (df + 0.5));
    });
    const totalIdf = idf.reduce((sum, value) => sum + value, 0);
    if (!(totalIdf > 0)) return boosts;
    const decay = 2 ** (-(now - this.#origin) / this.options.halfLifeMs);
    const { priorReports, maxBoost } = this.options;
    const matches = new Map<string, { bag: ToolBag; match: number; similar: number }>();
    terms.forEach((term, i) => {
      for (const toolKey of this.#postings.get(term) ?? []) {
        const bag = this.#tools.get(toolKey)!;
        const weight = bag.terms.get(term)!;
        const share = bag.positive > 0 ? Math.min(1, weight / bag.positive) : 0;
        if (share < MIN_TERM_SHARE) continue;
        const entry = matches.get(toolKey) ?? { bag, match: 0, similar: 0 };
        entry.match += idf[i]! * share;
        entry.similar = Math.max(entry.similar, weight * decay);
        matches.set(toolKey, entry);
      }
    });
    for (const [toolKey, { bag, match, similar }] of matches) {
      const reports = bag.reports * decay;
      if (!(reports > 0)) continue;
      const full = maxBoost * (match / totalIdf);
      const boost = full * (reports / (reports + priorReports));
      if (!(boost > 1e-6)) continue;
      boosts.set(toolKey, {
        boost,
        cautiousBoost: full * (reports / (reports + priorReports * DESTRUCTIVE_EVIDENCE)),
        similarRequests: Math.max(1, Math.round(similar)),
      });
    }
    return boosts;
  }

  #post(term: string, toolKey: string): void {
    let holders = this.#postings.get(term);
    if (holders === undefined) this.#postings.set(term, (holders = new Set()));
    holders.add(toolKey);
    this.#entries += 1;
  }

  #unpost(term: string, toolKey: string): void {
    const holders = this.#postings.get(term);
    holders?.delete(toolKey);
    if (holders?.size === 0) this.#postings.delete(term);
    this.#entries -= 1;
  }

  #keepHeaviest(bag: ToolBag, toolKey: string): void {
    const sorted = [...bag.terms].sort((a, b) => b[1] - a[1]);
    const kept = Math.floor(MAX_TERMS_PER_TOOL * 0.75);
    for (const [term] of sorted.slice(kept)) this.#unpost(term, toolKey);
    bag.terms = new Map(sorted.slice(0, kept));
  }
}
