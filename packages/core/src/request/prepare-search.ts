import type { SearchBoost, SearchEnvelope, SearchMeta, ToolInfo } from '../schemas.js';
import { compileToolFilter, type ToolFilter } from './tool-filter.js';
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
  maxResults?: number;
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
 * Time the filter may take on one list. Name rules are bounded in size (MAX_RULE_INSTRUCTIONS) but
 * not in cost: 16 rules `[a-z]{1,100}b` took 4 minutes on 5,000 tools with 512-character names. Real
 * filters take far less (64 server globs over 5,000 tools: about 50 ms), so a filter still running
 * after this is refused rather than allowed to hold the event loop.
 */
const FILTER_TIME_BUDGET_MS = 500;

export function prepareSearch(envelope: SearchEnvelope, list: ToolList): Preparation {
  const filter = compileToolFilter(envelope.filter);
  if (!filter.ok) return filter;
  const tools = filter.keep ? keepWithinBudget(list.tools, filter.keep) : list.tools;
  if (tools === undefined) {
    const field = envelope.filter?.tools?.length ? '/filter/tools' : '/filter';
    return { ok: false, problems: [{ field, message: `took over ${FILTER_TIME_BUDGET_MS} ms on this list: use fewer or simpler rules` }] };
  }
  const search: PreparedSearch = {
    query: envelope.query,
    tools,
    usableTools: list.tools.length,
    list: list.tools,
    skippedMeta: list.skippedCount === 0 ? {} : { skipped: list.skipped, skippedCount: list.skippedCount },
  };
  if (envelope.context !== undefined) search.context = envelope.context;
  if (envelope.maxResults !== undefined) search.maxResults = envelope.maxResults;
  if (envelope.boost !== undefined) search.boost = envelope.boost;
  if (envelope.minRelevance !== undefined) search.minRelevance = envelope.minRelevance;
  return { ok: true, search };
}

/** The tools `keep` keeps, or undefined when that takes longer than FILTER_TIME_BUDGET_MS. */
function keepWithinBudget(tools: ToolInfo[], keep: ToolFilter): ToolInfo[] | undefined {
  const until = performance.now() + FILTER_TIME_BUDGET_MS;
  const kept: ToolInfo[] = [];
  for (const tool of tools) {
    if (keep(tool)) kept.push(tool);
    if (performance.now() > until) return undefined;
  }
  return kept;
}
