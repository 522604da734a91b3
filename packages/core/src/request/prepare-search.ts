import type { SearchBoost, SearchEnvelope, SearchMeta, ToolInfo } from '../schemas.js';
import { compileToolFilter } from './tool-filter.js';
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

export function prepareSearch(envelope: SearchEnvelope, list: ToolList): Preparation {
  const filter = compileToolFilter(envelope.filter);
  if (!filter.ok) return filter;
  const search: PreparedSearch = {
    query: envelope.query,
    tools: filter.keep ? list.tools.filter(filter.keep) : list.tools,
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
