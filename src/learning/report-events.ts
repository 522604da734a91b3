import { createHash } from 'node:crypto';
import {
  codePointPrefix,
  exceedsCodePoints,
  FEEDBACK_OUTCOMES,
  MAX_NAME_CHARS,
  MAX_QUERY_ITEMS,
  MAX_REQUEST_ID_CHARS,
  RANKED_QUERY_CHARS,
  tokenize,
  type FeedbackOutcome,
} from '@catalog-search/core';

/** A report's event as read: the request's terms are found later (from `query`, or the remembered search). */
interface ReadEvent {
  index: number;
  toolKey: string;
  outcome: FeedbackOutcome;
  requestId?: string;
  /** The event's own `query`, as sub-queries (each cut to what ranking reads). */
  query?: string[];
}

export interface IgnoredEvent {
  index: number;
  reason: string;
}

/**
 * Words of one request the log keeps at most (the first ones, each once). Requests in the public sets
 * have 10–25 distinct terms after stop words; 32 bounds an event in the log (sizes in docs/api.md).
 */
const MAX_TERMS_PER_EVENT = 32;
/** Characters of a term kept (longer ones are identifiers or noise; core's terms are rarely past 20). */
const MAX_TERM_CHARS = 40;

/**
 * How much a report counts. `succeeded` is the strongest evidence; `selected` says only that the
 * agent picked it, and a pick of the first result may be position alone (agents take the top one),
 * so it counts half, and a quarter when the search had ranked it first; `failed` takes back as much
 * as a success gave.
 */
export function reportWeight(outcome: FeedbackOutcome, rankedFirst: boolean): number {
  if (outcome === 'succeeded') return 1;
  if (outcome === 'failed') return -1;
  return rankedFirst ? 0.25 : 0.5;
}

/**
 * Reads each event on its own: one that cannot be used is ignored with the field and why, and the
 * others are still learned from (the envelope itself was validated by the route's schema).
 */
export function readEvents(
  events: readonly unknown[],
  maxQueryChars: number,
): { events: ReadEvent[]; ignored: IgnoredEvent[] } {
  const read: ReadEvent[] = [];
  const ignored: IgnoredEvent[] = [];
  events.forEach((event, index) => {
    const result = readEvent(event, index, maxQueryChars);
    if (typeof result === 'string') ignored.push({ index, reason: result });
    else read.push(result);
  });
  return { events: read, ignored };
}

function readEvent(event: unknown, index: number, maxQueryChars: number): ReadEvent | string {
  if (event === null || typeof event !== 'object' || Array.isArray(event)) return 'must be an object';
  const fields = event as Record<string, unknown>;
  const { toolKey, outcome, requestId, query, context } = fields;
  if (typeof toolKey !== 'string' || toolKey.trim() === '' || exceedsCodePoints(toolKey, MAX_NAME_CHARS)) {
    return `toolKey: must be a non-empty string of at most ${MAX_NAME_CHARS} characters`;
  }
  if (typeof outcome !== 'string' || !(FEEDBACK_OUTCOMES as readonly string[]).includes(outcome)) {
    return `outcome: must be one of ${FEEDBACK_OUTCOMES.join(', ')}`;
  }
  if (
    requestId !== undefined &&
    (typeof requestId !== 'string' || requestId === '' || requestId.length > MAX_REQUEST_ID_CHARS)
  ) {
    return `requestId: must be a string of 1–${MAX_REQUEST_ID_CHARS} characters`;
  }
  if (context !== undefined && typeof context !== 'string') return 'context: must be a string';
  const sub = query === undefined ? undefined : readQuery(query, maxQueryChars);
  if (typeof sub === 'string') return sub;
  if (requestId === undefined && sub === undefined) return 'query: required without requestId';
  return {
    index,
    toolKey,
    outcome: outcome as FeedbackOutcome,
    ...(requestId === undefined ? {} : { requestId }),
    ...(sub === undefined ? {} : { query: sub }),
  };
}

function readQuery(query: unknown, maxQueryChars: number): string[] | string {
  const items = typeof query === 'string' ? [query] : query;
  if (!Array.isArray(items) || items.length === 0 || items.length > MAX_QUERY_ITEMS) {
    return `query: must be a string or 1–${MAX_QUERY_ITEMS} strings`;
  }
  const sub: string[] = [];
  for (const item of items) {
    if (typeof item !== 'string') return 'query: must be a string or an array of strings';
    if (exceedsCodePoints(item, maxQueryChars)) return `query: a sub-query is longer than ${maxQueryChars} characters`;
    sub.push(codePointPrefix(item, RANKED_QUERY_CHARS));
  }
  return sub;
}

/**
 * Which search a report is about, as the log keeps it (a short digest: the log holds no ids or text).
 * A report naming a search the service remembers is about that search; any other (the client's
 * fallback, an expired or made-up requestId) is known only by its words, so the same words within one
 * search lifetime (`windowMs`, FEEDBACK_SEARCH_TTL_MS) count as one search, however many reports or
 * requestIds name them.
 */
export function searchOf(
  known: { requestId: string } | { terms: readonly string[]; at: number; windowMs: number },
): string {
  const identity =
    'requestId' in known
      ? `id\n${known.requestId}`
      : `words\n${Math.floor(known.at / known.windowMs)}\n${[...known.terms].sort().join(' ')}`;
  return createHash('sha256').update(identity).digest('base64url').slice(0, 12);
}

/** The words the model learns from and matches by: core's index terms of the request, each once, bounded. */
export function requestTerms(query: readonly string[]): string[] {
  const terms = new Set<string>();
  for (const sub of query) {
    for (const term of tokenize(codePointPrefix(sub, RANKED_QUERY_CHARS))) {
      if (term.length > MAX_TERM_CHARS) continue;
      terms.add(term);
      if (terms.size === MAX_TERMS_PER_EVENT) return [...terms];
    }
  }
  return [...terms];
}
