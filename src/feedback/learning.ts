import type { FeedbackResponse, RankedTool, SearchResult, ToolInfo } from '@catalog-search/core';
import type { Config } from '../config.js';
import type { MemoryBudget } from '../memory/index.js';
import type { SharedStore } from '../shared/shared-store.js';
import { FeedbackLog } from './feedback-log.js';
import { applyLearning, type LearningStatus } from './learned-ranking.js';
import { RecentSearches } from './recent-searches.js';
import { readEvents, reportWeight, requestTerms, searchOf, type IgnoredEvent } from './report-events.js';
import type { UsageEvent, UsageModel } from './usage-model.js';

/** The learning step of one search, for a project that has taught something (src/search/pipeline.ts). */
export interface LearnedRanking {
  apply(
    ranked: RankedTool[],
    request: { query: readonly string[]; tools: readonly ToolInfo[] },
    maxResults: number,
  ): { ranked: RankedTool[]; status: LearningStatus };
}

/**
 * Learning from use: the router reports which tool its agent used for a search and how it went
 * (POST /v1/catalog/feedback), and the project's later searches rank that tool higher for similar
 * requests. Per project only: nothing one project reports is read for another.
 */
export class Learning {
  readonly #searches: RecentSearches;
  readonly #log: FeedbackLog;
  readonly #searchTtlMs: number;

  constructor(
    config: Readonly<Config['feedback']>,
    private readonly maxQueryChars: number,
    deps: { memory: MemoryBudget; shared?: SharedStore | undefined },
  ) {
    this.#searchTtlMs = config.searchTtlMs;
    this.#searches = new RecentSearches(deps.memory, config.searchTtlMs, deps.shared);
    this.#log = new FeedbackLog({
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
  ): void {
    const terms = requestTerms(query);
    if (terms.length === 0) return;
    this.#searches.remember(projectId, requestId, { terms, ...(results[0] ? { first: results[0].toolKey } : {}) });
  }

  /**
   * Learns from a report's usable events; the others are named with why. Each event is tagged with
   * the search it is about (searchOf), so the model counts a tool once per search; repeats within the
   * body are accepted but not logged again.
   */
  async report(projectId: string, events: readonly unknown[], now = Date.now()): Promise<FeedbackResponse> {
    const read = readEvents(events, this.maxQueryChars);
    const ignored: IgnoredEvent[] = [...read.ignored];
    const named = read.events.flatMap((event) => (event.requestId === undefined ? [] : [event.requestId]));
    const searches = named.length > 0 ? await this.#searches.find(projectId, named) : new Map();
    const usage: UsageEvent[] = [];
    const repeats = new Set<string>();
    let accepted = 0;
    for (const event of read.events) {
      const search = event.requestId === undefined ? undefined : searches.get(event.requestId);
      const terms = event.query ? requestTerms(event.query) : search?.terms;
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
      const weight = reportWeight(event.outcome, search?.first === event.toolKey);
      accepted += 1;
      const repeat = `${about}\n${weight}\n${event.toolKey}`;
      if (repeats.has(repeat)) continue;
      repeats.add(repeat);
      usage.push({ at: now, toolKey: event.toolKey, weight, terms, search: about });
    }
    await this.#log.append(projectId, usage);
    ignored.sort((a, b) => a.index - b.index);
    return { accepted, ignored };
  }

  /** Forgets everything the project taught (here and in Redis); false when Redis could not be reached. */
  forget(projectId: string): Promise<boolean> {
    return this.#log.forget(projectId);
  }

  /** The learning step for a search of this project, or undefined when it has taught nothing (the answer is then exactly the lexical one). */
  async forSearch(projectId: string): Promise<LearnedRanking | undefined> {
    const model = await this.#log.model(projectId);
    return model === undefined ? undefined : learnedRanking(model);
  }
}

function learnedRanking(model: UsageModel): LearnedRanking {
  return {
    apply: (ranked, request, maxResults) =>
      applyLearning(ranked, request.tools, model.boosts(requestTerms(request.query), Date.now()), maxResults),
  };
}
