import { MAX_QUERY_ITEMS, type FeedbackResponse, type SearchResult, type ToolInfo } from '@catalog-search/core';
import type { Config } from '../config/index.js';
import type { MemoryBudget } from '../memory/exports.js';
import type { SharedStore } from '../redis/shared-store.js';
import { ReportLog } from './own/report-log.js';
import { learningStep, type LearningStep } from './learning-step.js';
import { RecentSearches } from './recent-searches.js';
import { readEvents, reportWeight, requestTerms, searchOf, type IgnoredEvent } from './report-events.js';
import { SharedLearning, type SharedReport } from './shared/shared-learning.js';
import type { WithdrawResult } from './shared/shared-ledger.js';
import type { TermKeys } from './term-keys.js';
import type { ReportedUse } from './own/project-model.js';

/**
 * What became of a report: stored (with Redis: in its log there, and counted in the shared model), or
 * not, because Redis could not be reached; the route then answers 503 so that the client sends it again.
 */
type ReportResult = { stored: true; answer: FeedbackResponse; cost: ReportCost } | { stored: false };

/** What learning brings to one search: its step (none: nothing taught applies), and whether shared learning was withheld. */
interface SearchLearning {
  step?: LearningStep;
  /** Shared learning left out: this replica reads the model again after a DELETE (`meta.sharedLearning: "reloading"`). */
  sharedWithheld?: true;
}

/** What a stored report cost Redis, in what it wrote: charged to its project (report-work.ts). */
export interface ReportCost {
  /** Events appended to the project's log. */
  logged: number;
  /** (term, tool) says sent to the shared model. */
  says: number;
}

/**
 * Tools one search's reports may name in a body: a task has at most MAX_QUERY_ITEMS steps, and an
 * agent uses a tool a step. One body of 100 events naming one search with 100 tools made thousands of
 * changes to the shared model (issue 48; docs/operations.md#what-a-report-costs-redis); further tools
 * are ignored.
 */
const MAX_TOOLS_PER_SEARCH = MAX_QUERY_ITEMS;

/**
 * Why a DELETE was not done, as its 503 says: Redis away (retry), or Redis (allkeys-lru) evicted the
 * record of what the project said in the shared model but not the counts it added, which can then
 * not be found to withdraw (docs/privacy.md, "Opting out and forgetting").
 */
export const NOT_FORGOTTEN = {
  unreachable: 'The shared store could not be reached: the other replicas still use what this project taught. Retry.',
  evicted:
    "The project's learning record was evicted from the shared store (its eviction policy evicts durable state): " +
    'what it said in the shared model can no longer be found to withdraw, and goes only as it decays or its counts ' +
    'are evicted. Its own learning is forgotten.',
} as const;

/**
 * The lists a project searched, by tool-set id: how a report's toolKey is told by content. The
 * tool-set store (src/tool-sets/tool-set-store.ts) is the one services.ts passes.
 */
interface SearchedLists {
  resolve(projectId: string, toolSet: string): Promise<readonly ToolInfo[] | undefined>;
}

/**
 * Learning from use: the router reports which tool its agent used for a search and how it went
 * (POST /v1/catalog/feedback), and the project's later searches rank that tool higher for similar
 * requests. Per project, and with LEARNING_SHARED also across projects under k-anonymity
 * (shared-learning.ts). Words are kept only as keyed hashes (term-keys.ts).
 */
export class Learning {
  readonly #searches: RecentSearches;
  readonly #log: ReportLog;
  readonly #keys: TermKeys;
  readonly #shared: SharedLearning | undefined;
  readonly #lists: SearchedLists | undefined;
  readonly #searchTtlMs: number;
  readonly #clock: () => number;

  constructor(
    config: Readonly<Config['feedback']>,
    private readonly maxQueryChars: number,
    deps: {
      memory: MemoryBudget;
      shared?: SharedStore | undefined;
      keys: TermKeys;
      lists?: SearchedLists | undefined;
      /** What time it is (ms): Date.now; the eval's simulation ages its projects with its own. */
      clock?: (() => number) | undefined;
    },
  ) {
    this.#clock = deps.clock ?? Date.now;
    this.#keys = deps.keys;
    this.#lists = deps.lists;
    this.#shared = config.shared.enabled
      ? new SharedLearning(
          {
            minProjects: config.shared.minProjects,
            thresholdSpread: config.shared.thresholdSpread,
            maxAssociations: config.shared.maxAssociations,
            halfLifeMs: config.halfLifeMs,
            maxBoost: config.maxBoost,
            admission: config.shared.admission,
            maxSays: config.shared.maxSays,
          },
          deps.keys,
          deps,
        )
      : undefined;
    this.#searchTtlMs = config.searchTtlMs;
    this.#searches = new RecentSearches(deps.memory, config.searchTtlMs, deps.shared);
    this.#log = new ReportLog({
      memory: deps.memory,
      shared: deps.shared,
      maxEvents: config.maxEvents,
      model: { halfLifeMs: config.halfLifeMs, priorReports: config.priorReports, maxBoost: config.maxBoost },
    });
  }

  /** Remembers a search's request terms by its requestId (for reports that name only the requestId). */
  rememberSearch(
    projectId: string,
    requestId: string,
    query: readonly string[],
    results: readonly SearchResult[],
    toolSet?: string,
  ): void {
    const terms = this.#keys.terms(requestTerms(query));
    if (terms.length === 0) return;
    this.#searches.remember(projectId, requestId, {
      terms,
      ...(results[0] ? { first: results[0].toolKey } : {}),
      ...(toolSet === undefined ? {} : { list: toolSet }),
    });
  }

  /**
   * Learns from a report's usable events; the others are named with why. Each event is tagged with
   * the search it is about (searchOf), so the model counts a tool once per search; repeats within the
   * body are accepted but not logged again. `share` false: the project opted out of shared learning
   * (its token's `shareLearning` claim), its reports stay its own.
   *
   * Nothing is answered as accepted unless it is stored: with Redis, a report whose search could not be
   * looked up, or that could not be written, is not stored at all (`stored: false`).
   */
  async report(
    projectId: string,
    events: readonly unknown[],
    share = true,
    now = this.#clock(),
  ): Promise<ReportResult> {
    const read = readEvents(events, this.maxQueryChars);
    const ignored: IgnoredEvent[] = [...read.ignored];
    const named = read.events.flatMap((event) => (event.requestId === undefined ? [] : [event.requestId]));
    const recalled = named.length > 0 ? await this.#searches.find(projectId, named) : undefined;
    // A search not found because Redis was away is not an unknown search: ignoring its report would lose it.
    if (recalled?.unreachable) return { stored: false };
    const searches = recalled?.found ?? new Map<string, never>();
    const usage: ReportedUse[] = [];
    const lists: Array<{ list: string; usage: ReportedUse }> = [];
    const repeats = new Set<string>();
    const toolsOf = new Map<string, Set<string>>();
    let accepted = 0;
    for (const event of read.events) {
      const search = event.requestId === undefined ? undefined : searches.get(event.requestId);
      const terms = event.query ? this.#keys.terms(requestTerms(event.query)) : search?.terms;
      if (terms === undefined) {
        ignored.push({
          index: event.index,
          reason: 'requestId: no recent search of this project has this id; send query',
        });
        continue;
      }
      if (terms.length === 0) {
        ignored.push({ index: event.index, reason: 'query: has no words to learn from' });
        continue;
      }
      const about = searchOf(
        search && event.requestId !== undefined
          ? { requestId: event.requestId }
          : { terms, at: now, windowMs: this.#searchTtlMs },
      );
      // Only a remembered search's reports reach the shared model (`lists` below): they are the ones bounded.
      let tools = search ? toolsOf.get(about) : undefined;
      if (search && tools === undefined) toolsOf.set(about, (tools = new Set()));
      if (tools && !tools.has(event.toolKey) && tools.size >= MAX_TOOLS_PER_SEARCH) {
        ignored.push({
          index: event.index,
          reason: `toolKey: this body already names ${MAX_TOOLS_PER_SEARCH} tools for this search, the most one search uses`,
        });
        continue;
      }
      tools?.add(event.toolKey);
      const weight = reportWeight(event.outcome, search?.first === event.toolKey);
      accepted += 1;
      const repeat = `${about}\n${weight}\n${event.toolKey}`;
      if (repeats.has(repeat)) continue;
      repeats.add(repeat);
      usage.push({ at: now, toolKey: event.toolKey, weight, terms, search: about });
      if (search?.list !== undefined) lists.push({ list: search.list, usage: usage.at(-1)! });
    }
    if (!(await this.#log.append(projectId, usage))) return { stored: false };
    // After the log: a resent report appends one more report of the same search (counted once) and
    // replaces the project's says (counted once), so a retry after a failure here changes nothing else.
    let says = 0;
    if (this.#shared && share && lists.length > 0) {
      const counted = await this.#shared.contribute(projectId, await this.#sharedReports(projectId, lists), now);
      if (counted === undefined) return { stored: false };
      says = counted;
    }
    ignored.sort((a, b) => a.index - b.index);
    return { stored: true, answer: { accepted, ignored }, cost: { logged: usage.length, says } };
  }

  /**
   * Shared associations that met their threshold and wait for the hold or the deployment's rate, as
   * this replica last read the model (docs/operations.md, metrics); undefined without shared learning.
   */
  sharedWaiting(): { associations: number; longestMs: number } | undefined {
    return this.#shared?.waiting(this.#clock());
  }

  /**
   * Forgets everything the project taught (here and in Redis) and withdraws its say from the shared
   * model: 'done', 'unreachable' (Redis could not be reached), or 'evicted' (Redis evicted the record
   * of what the project said in the shared model, which can then not be withdrawn: shared-ledger.ts).
   */
  async forget(projectId: string): Promise<WithdrawResult> {
    const [own, shared] = await Promise.all([
      this.#log.forget(projectId),
      this.#shared?.withdraw(projectId) ?? ('done' as const),
    ]);
    return own ? shared : 'unreachable';
  }

  /**
   * The learning step for a search of this project; none when neither it nor (with shared learning)
   * enough other projects have taught anything: the answer is then exactly the lexical one.
   * `useShared` false: the project refuses other projects' learning (its token's `useSharedLearning`
   * claim), and gets what it would with shared learning off. `sharedWithheld`: the search goes without
   * shared learning because this replica reads the model again after a DELETE (`meta.sharedLearning`).
   */
  async forSearch(projectId: string, useShared = true): Promise<SearchLearning> {
    const sharing = useShared ? this.#shared : undefined;
    const [own, shared] = await Promise.all([this.#log.model(projectId), sharing?.model()]);
    const sharedModel = shared?.model;
    const withheld = shared?.withheld ? { sharedWithheld: true as const } : {};
    if (own === undefined && sharedModel === undefined) return withheld;
    const step = learningStep({
      now: this.#clock,
      termsOf: (query) => {
        const words = requestTerms(query);
        return { words, hashes: this.#keys.terms(words) };
      },
      ...(own ? { own: (terms, now) => own.boosts(terms, now) } : {}),
      ...(sharedModel && sharing
        ? { shared: (terms, tools, now, ranked) => sharing.boosts(sharedModel, terms, tools, now, ranked) }
        : {}),
    });
    return { step, ...withheld };
  }

  /** The tool of each report by content, from the list its search was over (a list no longer kept: not shared). */
  async #sharedReports(
    projectId: string,
    reports: ReadonlyArray<{ list: string; usage: ReportedUse }>,
  ): Promise<SharedReport[]> {
    const byList = new Map<string, Promise<Map<string, ToolInfo> | undefined>>();
    const shared: SharedReport[] = [];
    for (const { list, usage } of reports) {
      let tools = byList.get(list);
      if (tools === undefined) {
        tools = (this.#lists?.resolve(projectId, list) ?? Promise.resolve(undefined)).then((found) =>
          found === undefined ? undefined : new Map(found.map((tool) => [tool.toolKey, tool])),
        );
        byList.set(list, tools);
      }
      const tool = (await tools)?.get(usage.toolKey);
      if (tool) shared.push({ terms: usage.terms, toolId: this.#shared!.toolId(tool), weight: usage.weight });
    }
    return shared;
  }
}
