import {
  DEFAULT_MAX_RESULTS,
  type SearchBoost,
  type SearchEnvelope,
  type SearchMeta,
  type ToolInfo,
} from '../schemas.js';
import { compileToolFilter } from './tool-filter.js';
import { runToolNameRules, type ToolNameRun } from './tool-name-rules.js';
import type { RequestProblem, ToolList } from './tool-list.js';

/**
 * A request made ready for ranking, the same way in the service and in the client's fallback: the
 * envelope (already validated) with the tool list that `readToolList` read, the filter applied. The
 * pipeline then ranks `tools` and hands the ranking to `adjustRelevance` with `boost` and
 * `minRelevance`.
 */
export interface PreparedSearch {
  query: string[];
  context?: string;
  /** The answer's size: the request's `maxResults`, defaulted here once (DEFAULT_MAX_RESULTS). */
  maxResults: number;
  /** The usable tools that pass the filter, in request order. */
  tools: ToolInfo[];
  boost?: SearchBoost;
  minRelevance?: number;
  /** Usable tools before the filter (for logs). */
  usableTools: number;
  /** The usable tools before the filter: the list a `toolSet` id names (toolSetId). */
  list: ToolInfo[];
  /** `meta.skipped` and `meta.skippedCount`, when any tool was skipped. */
  skippedMeta: Pick<SearchMeta, 'skipped' | 'skippedCount'>;
}

export type Preparation = { ok: true; search: PreparedSearch } | { ok: false; problems: RequestProblem[] };

/**
 * Time `filter.tools` may take on one list. Rules are bounded in size (MAX_RULE_INSTRUCTIONS) and in
 * cost per tool (MAX_STEPS_PER_TOOL) but not on the whole list: 16 rules `[a-z]{1,100}b` would take
 * minutes on 5,000 tools with long names. Real filters take a tenth of this budget or less
 * (docs/performance.md#re2-rules-compile-and-match-cost), so a filter still running after this is
 * refused rather than allowed to hold the thread it runs on (here, the caller's; the service runs the
 * rules off its event loop).
 */
export const FILTER_TIME_BUDGET_MS = 500;

export interface PrepareOptions {
  /**
   * The result of `runToolNameRules` on `list.tools` with the request's `filter.tools`, when the
   * caller ran it (the service, in a worker thread). Without it the rules run here, within
   * FILTER_TIME_BUDGET_MS.
   */
  toolNameRun?: ToolNameRun;
}

export function prepareSearch(envelope: SearchEnvelope, list: ToolList, options: PrepareOptions = {}): Preparation {
  const rules = envelope.filter?.tools ?? [];
  let namesPassed: Set<ToolInfo> | undefined;
  if (rules.length > 0) {
    const run = options.toolNameRun ?? runToolNameRules(rules, list.tools, FILTER_TIME_BUDGET_MS);
    if (!run.ok) return run;
    namesPassed = new Set(list.tools.filter((_, index) => run.passes[index] === 1));
  }
  const filter = compileToolFilter(envelope.filter, namesPassed);
  if (!filter.ok) return filter;
  // The other filters (servers, tags, hints) cost a set lookup or two per tool.
  const tools = filter.keep ? list.tools.filter(filter.keep) : list.tools;
  const search: PreparedSearch = {
    query: envelope.query,
    maxResults: envelope.maxResults ?? DEFAULT_MAX_RESULTS,
    tools,
    usableTools: list.tools.length,
    list: list.tools,
    skippedMeta: list.skippedCount === 0 ? {} : { skipped: list.skipped, skippedCount: list.skippedCount },
  };
  if (envelope.context !== undefined) search.context = envelope.context;
  if (envelope.boost !== undefined) search.boost = envelope.boost;
  if (envelope.minRelevance !== undefined) search.minRelevance = envelope.minRelevance;
  return { ok: true, search };
}
