// The prepare stage, in two steps around the schema's validation of the envelope:
// 1. `readRequestList` (before validation): the configurable limits the wire schema cannot know, then
//    the tool list, by reference (`toolSet`, from this project's store) or sent in full (`tools` or
//    `servers`, read by core one tool at a time: an unusable tool is skipped and reported, only a
//    malformed list is a 400). The body is read, never changed.
// 2. `prepareRequest` (after validation): `filter.tools` rules in their worker (their CPU charged to
//    the project), the other filters and the envelope through core's `prepareSearch` (as the client's
//    fallback does), the list registered for references once the request is known to be valid, and the
//    search's work charged.
import {
  countTools,
  exceedsCodePoints,
  MAX_LISTED_PROBLEMS,
  prepareSearch,
  readToolList,
  type PreparedSearch,
  type SearchEnvelope,
} from '@catalog-search/core';
import { ProblemError, type FieldError } from '../http/errors.js';
import {
  referencedList,
  registeredList,
  resentList,
  sentList,
  type RequestToolList,
} from '../tool-sets/request-tools.js';
import type { ToolSetStore } from '../tool-sets/tool-set-store.js';
import type { Deadline } from '../waits/deadline.js';
import { workOfCpu, type FairShare } from '../fairness/fair-share.js';
import type { FilterRulePool } from '../fairness/filter-rule-pool.js';

interface RequestLimits {
  maxTools: number;
  maxQueryChars: number;
  maxContextChars: number;
}

/**
 * The request's list. `sentToolsBytes`: the bytes of the body's `tools`, when the parser kept them
 * (resent-body.ts), noted for the held list if they read as it.
 */
export async function readRequestList(
  { body, projectId, sentToolsBytes }: { body: unknown; projectId: string; sentToolsBytes?: Uint8Array | undefined },
  limits: RequestLimits,
  toolSets: ToolSetStore,
): Promise<RequestToolList | undefined> {
  enforceLimits(body, limits);
  const referenced = await referencedList(body, projectId, toolSets);
  if (referenced !== undefined || body === null || typeof body !== 'object' || Array.isArray(body)) return referenced;
  const { tools, servers } = body as Record<string, unknown>;
  // The list this project sent last, sent again as it was: nothing to read.
  const resent = servers === undefined ? resentList(tools, projectId, toolSets, sentToolsBytes) : undefined;
  if (resent !== undefined) return resent;
  const reading = readToolList({ tools, servers });
  if (!reading.ok) throw invalidRequest(reading.problems);
  // The list this project sent last, sent again with changes its reading removes (skipped tools, empty
  // fields): the store's array, so that later stages find their work done.
  return sentList(reading.list, projectId, toolSets);
}

/** A search ready for ranking, with its list's id for `meta.toolSet` (see RequestToolList). */
interface PreparedRequest extends Omit<RequestToolList, 'list'> {
  search: PreparedSearch;
  /** The work charged for its ranking before it ran (tools × sub-queries), settled once it has run. */
  estimatedWork: number;
  /** The work its `filter.tools` rules cost (their CPU time; 0 without rules). */
  filterWork: number;
}

export async function prepareRequest(
  envelope: SearchEnvelope,
  sent: RequestToolList,
  projectId: string,
  services: { filterRules: FilterRulePool; toolSets: ToolSetStore; fairShare: FairShare },
  deadline?: Deadline,
): Promise<PreparedRequest> {
  const { filterRules, toolSets, fairShare } = services;
  const rules = envelope.filter?.tools ?? [];
  const filtered =
    rules.length > 0 ? await filterRules.run(projectId, rules, sent.list.tools, deadline?.signal) : undefined;
  // Every run is charged, refused or not: the CPU was spent either way.
  const filterWork = filtered === undefined ? 0 : workOfCpu(filtered.ms);
  if (fairShare.enabled) fairShare.chargeWork(projectId, filterWork);
  const prepared = prepareSearch(envelope, sent.list, filtered ? { toolNameRun: filtered.run } : {});
  if (!prepared.ok) throw invalidRequest(prepared.problems);
  // A list sent in full is kept for references only once the request is known to be valid.
  const { toolSet, kept, byReference } = sent.byReference ? sent : registeredList(sent.list, projectId, toolSets);
  const { search } = prepared;
  // Charged now, so that the project's next search is admitted on it; settled by ranking's CPU time.
  const estimatedWork = search.tools.length * search.query.length;
  if (fairShare.enabled) fairShare.chargeWork(projectId, estimatedWork);
  return {
    search,
    estimatedWork,
    filterWork,
    byReference,
    ...(toolSet === undefined ? {} : { toolSet }),
    ...(kept === undefined ? {} : { kept }),
  };
}

/**
 * Limits the wire schema cannot know (they are configurable). Checked before the schema so that a
 * body with far too many tools is refused before any tool is read; fields of the wrong type are left
 * to the schema, which names them. Lengths are counted in characters (code points), as everywhere.
 */
function enforceLimits(body: unknown, limits: RequestLimits): void {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return;
  const { query, context } = body as Record<string, unknown>;
  const tools = countTools(body as { tools?: unknown; servers?: unknown });
  if (tools > limits.maxTools) {
    const field = Array.isArray((body as { servers?: unknown }).servers) ? '/servers' : '/tools';
    throw new ProblemError(
      'TOO_MANY_TOOLS',
      `body ${field}: ${tools} tools sent; at most ${limits.maxTools} are accepted per request (MAX_TOOLS).`,
      {
        errors: [{ field, message: `must carry at most ${limits.maxTools} tools` }],
      },
    );
  }
  const errors: FieldError[] = [];
  if (Array.isArray(query)) {
    query.forEach((item, index) => {
      if (typeof item === 'string' && exceedsCodePoints(item, limits.maxQueryChars)) {
        errors.push({
          field: `/query/${index}`,
          message: `must be at most ${limits.maxQueryChars} characters (MAX_QUERY_CHARS)`,
        });
      }
    });
  }
  if (typeof context === 'string' && exceedsCodePoints(context, limits.maxContextChars)) {
    errors.push({
      field: '/context',
      message: `must be at most ${limits.maxContextChars} characters (MAX_CONTEXT_CHARS)`,
    });
  }
  if (errors.length > 0) throw invalidRequest(errors);
}

function invalidRequest(problems: readonly FieldError[]): ProblemError {
  const first = problems[0]!;
  return new ProblemError('INVALID_REQUEST', `body ${first.field}: ${first.message}`, {
    errors: problems.slice(0, MAX_LISTED_PROBLEMS),
  });
}
