import { MAX_QUERY_ITEMS, RANKED_QUERY_CHARS } from '@catalog-search/core';
import { WORK_PER_CPU_MS } from '../fairness/fair-share.js';
import type { ReportCost } from './learning.js';

/**
 * Characters of request text the learning step tokenizes per millisecond when every word is new to
 * it, the costly case (words it has seen go many times faster); figures in docs/performance.md.
 */
const NEW_WORD_CHARS_PER_CPU_MS = 1_000;

/**
 * The work a report costs, in the fair share's units (fair-share.ts): the characters of its events'
 * `query` that learning reads (each sub-query cut to what ranking reads), charged as if every word
 * were new. Estimated from the body like a search's tools × sub-queries, so a report of never-seen
 * words is charged before it could be refused, and an ordinary report costs a few units.
 */
export function reportWork(events: readonly unknown[]): number {
  let chars = 0;
  for (const event of events) {
    const query = event !== null && typeof event === 'object' ? (event as { query?: unknown }).query : undefined;
    const items = typeof query === 'string' ? [query] : Array.isArray(query) ? query.slice(0, MAX_QUERY_ITEMS) : [];
    for (const item of items) if (typeof item === 'string') chars += Math.min(item.length, RANKED_QUERY_CHARS);
  }
  return Math.ceil((chars * WORK_PER_CPU_MS) / NEW_WORD_CHARS_PER_CPU_MS);
}

/**
 * Redis CPU one say sent to the shared model costs (the contribute script withdraws the project's
 * earlier say of it, counts it, and lists the change for the replicas), as measured on a busy host
 * (docs/operations.md#what-a-report-costs-redis).
 */
const REDIS_MS_PER_SAY = 0.05;
/** Redis CPU one event appended to the project's log costs (JSON, RPUSH, trim), as above. */
const REDIS_MS_PER_LOGGED_EVENT = 0.02;

/**
 * The work a stored report cost Redis, in the fair share's units, charged once it is known (the says
 * depend on the searches the report names): a report that moves the shared model is no longer free,
 * so a loop of them is refused (429) as a loop of costly searches is.
 */
export function storedReportWork(cost: ReportCost): number {
  return Math.ceil((cost.says * REDIS_MS_PER_SAY + cost.logged * REDIS_MS_PER_LOGGED_EVENT) * WORK_PER_CPU_MS);
}
