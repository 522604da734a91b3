import type { ToolInfo } from '../schemas.js';
import { FIELD_COUNT, FIELDS } from './fields.js';
import type { QueryReadings } from '../languages/query-readings.js';
import type { QueryTerms } from '../text/tokenize.js';
import type { SubQueryResult } from './score-query.js';

const FIELD_LABEL: Record<(typeof FIELDS)[number], string> = {
  name: 'name',
  title: 'title',
  server: 'server',
  description: 'description',
  params: 'parameter names',
  paramText: 'parameter descriptions',
  tags: 'tags',
};
const MAX_WORDS_PER_FIELD = 6;

/**
 * What a sub-query's explanations are written from besides each tool's hits: its terms as analysed
 * (how they group into the request's words, and what stood for them) and how many count. Plain data,
 * so a ranking made in another thread can be explained where it is read (posted-ranking.ts).
 */
export interface ExplainedQuery {
  readonly query: Pick<QueryTerms, 'terms' | 'negated' | 'surface' | 'crossLingual'> & {
    readings?: Pick<QueryReadings, 'words' | 'termWord' | 'termGloss' | 'unitOfTerm'> | undefined;
  };
  readonly termCount: number;
}

/**
 * A short account of why a tool ranks where it does, from what matched: which query words hit which
 * fields, and how much of the request that covers. Written for an LLM reranker (and people) to read,
 * e.g. `matched "create", "issue" in name; "repository" in description (3 of 4 query terms)`.
 */
export function explainMatch(
  result: SubQueryResult,
  toolIndex: number,
  tool: ToolInfo,
  subQueryLabel?: string,
): string {
  const named = { exact: result.exact.has(toolIndex), serverOnly: result.serverOnly.has(toolIndex) };
  return explainHits(result, result.hits.of(toolIndex), named, tool, subQueryLabel);
}

/**
 * explainMatch from the parts: the tool's hits (`termIndex * FIELD_COUNT + field` codes), whether the
 * request names it exactly, and whether it names only its server.
 */
export function explainHits(
  result: ExplainedQuery,
  hits: Int32Array,
  named: { exact: boolean; serverOnly: boolean },
  tool: ToolInfo,
  subQueryLabel?: string,
): string {
  const parts: string[] = [];
  if (named.exact) parts.push(`query names this tool exactly (${JSON.stringify(String(tool.toolName))})`);
  const byField = new Map<number, string[]>();
  const excluded: string[] = [];
  let matched = 0;
  const { terms, negated, readings } = result.query;
  const positiveCount = terms.length;
  const readingStart = positiveCount + negated.length;
  // A request with readings counts its words (languages/query-readings.ts); a word matched twice counts once.
  const matchedUnits = new Set<number>();
  for (const hit of hits) {
    const termIndex = Math.floor(hit / FIELD_COUNT);
    if (termIndex >= positiveCount && termIndex < readingStart) {
      excluded.push(JSON.stringify(surfaceOf(result, termIndex)));
      continue;
    }
    const throughReading = termIndex >= readingStart;
    // A translated request's pieces that are no word of it (a bigram across two words, "を追"; a particle)
    // still score but are not named: the explanation names words (a tool described in Japanese).
    if (result.query.crossLingual && !throughReading && readings!.unitOfTerm[termIndex]! < 0) continue;
    if (readings) {
      const unit = throughReading ? readings.termWord[termIndex - readingStart]! : readings.unitOfTerm[termIndex]!;
      if (unit >= 0) matchedUnits.add(unit);
    } else matched += 1;
    // Through a reading: the word matched and the request's word it stands for ("meeting" (会議)).
    const word = throughReading
      ? `${JSON.stringify(readings!.termGloss[termIndex - readingStart]!)} (${readings!.words[readings!.termWord[termIndex - readingStart]!]!})`
      : JSON.stringify(surfaceOf(result, termIndex));
    const field = hit % FIELD_COUNT;
    let words = byField.get(field);
    if (words === undefined) byField.set(field, (words = []));
    if (words.length < MAX_WORDS_PER_FIELD && !(readings && words.includes(word))) words.push(word);
  }
  if (readings) matched += matchedUnits.size;
  const termCount = result.termCount;
  if (byField.size > 0) {
    const fields = [...byField.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([field, words]) => `${words.join(', ')} in ${FIELD_LABEL[FIELDS[field]!]}`);
    parts.push(
      `matched ${fields.join('; ')} (${matched} of ${termCount} query ${result.query.crossLingual ? 'words' : 'terms'})`,
    );
  }
  if (named.serverOnly) parts.push('the request names its server only, not an action');
  if (excluded.length > 0) parts.push(`also matches excluded ${excluded.join(', ')}`);
  const text =
    parts.join('; ') ||
    `no query term matched; listed because other tools of its server (${JSON.stringify(String(tool.serverName).slice(0, 60))}) match`;
  return subQueryLabel ? `${subQueryLabel}: ${text}` : text;
}

function surfaceOf(result: ExplainedQuery, termIndex: number): string {
  const { terms, negated, surface } = result.query;
  const term = termIndex < terms.length ? terms[termIndex]! : negated[termIndex - terms.length]!;
  return (surface.get(term) ?? term).toLowerCase().slice(0, 40);
}
