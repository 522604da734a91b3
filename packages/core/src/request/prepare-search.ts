import type { SearchBoost, SearchMeta, SearchRequest, ToolInfo } from '../schemas.js';
import { compileToolFilter } from './tool-filter.js';
import { readToolList, type RequestProblem, type ToolList } from './tool-list.js';

/**
 * A request made ready for ranking, the same way in the service and in the client's fallback: the
 * tool list read leniently (either form), the filter applied. The pipeline then ranks `tools` and
 * hands the ranking to `adjustRelevance` with `boost` and `minRelevance`.
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
  /** `meta.skipped` and `meta.skippedCount`, when any tool was skipped. */
  skippedMeta: Pick<SearchMeta, 'skipped' | 'skippedCount'>;
}

export type Preparation = { ok: true; search: PreparedSearch } | { ok: false; problems: RequestProblem[] };

/** `request`'s envelope must already match the schema; its tools are read here. */
export function prepareSearch(request: SearchRequest | (Omit<SearchRequest, 'tools'> & { tools?: unknown; servers?: unknown })): Preparation {
  const body = request as { tools?: unknown; servers?: unknown } & SearchRequest;
  const reading = readToolList(body);
  if (!reading.ok) return reading;
  const filter = compileToolFilter(body.filter);
  if (!filter.ok) return filter;
  const { list } = reading;
  const search: PreparedSearch = {
    query: body.query,
    tools: filter.keep ? list.tools.filter(filter.keep) : list.tools,
    usableTools: list.tools.length,
    skippedMeta: skippedMeta(list),
  };
  if (body.context !== undefined) search.context = body.context;
  if (body.maxResults !== undefined) search.maxResults = body.maxResults;
  if (body.boost !== undefined) search.boost = body.boost;
  if (body.minRelevance !== undefined) search.minRelevance = body.minRelevance;
  return { ok: true, search };
}

function skippedMeta(list: ToolList): Pick<SearchMeta, 'skipped' | 'skippedCount'> {
  return list.skippedCount === 0 ? {} : { skipped: list.skipped, skippedCount: list.skippedCount };
}
