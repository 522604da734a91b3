// Which tools the model sees. The prompt has a token budget, not a fixed top-k: a small tool list
// goes in whole; a larger one is filled in three passes so that tools sharing no word with the
// request still get a chance (lexical recall falls short well inside the budget: docs/ranking.md#llm-reranking):
//   1. coverage: the best few tools of every sub-query, round-robin, so no step of a multi-step
//      task is crowded out by another;
//   2. lexical order with server expansion: walking the lexical ranking, the first time a server
//      appears all its tools come along (a "send a Slack message" request also needs
//      `slack:list_channels`), until server expansion has used its share of the budget;
//   3. whatever budget is left: the tools that matched nothing, in list order.
// Candidates are then shown in lexical order (unmatched last) with ids t1, t2, … in that order. Lines
// get shorter down the ranking: the best `detailedCount` get detailed lines (200 description
// characters, 8 parameter names), the next ones to `briefFrom` compact lines (60, 2), the rest brief
// lines (40, 1): name, server and a description's first clause still say what a tool does, and the
// budget reaches deeper, where the tools words barely matched sit: more candidates, and more of the
// right ones, in the same tokens. Why these sizes: docs/ranking.md#semantic-stage ("Candidate recall").
import type { RankedTool, ToolInfo } from '@catalog-search/core';
import { readablePart, sanitizeData } from './sanitize.js';
import type { LineParts, LinePartsCache } from './token-count.js';

export interface CandidateOptions {
  /** The lexically best this many tools get detailed lines; the rest compact ones, so more tools fit. */
  detailedCount: number;
  /** Description characters and parameter names on a detailed line. */
  maxDescriptionChars: number;
  maxParams: number;
  /** Description characters and parameter names on a compact line. */
  compactDescriptionChars: number;
  compactParams: number;
  /** Tools from this lexical position on get brief lines (shorter still), so the budget reaches deeper. */
  briefFrom: number;
  /** Description characters and parameter names on a brief line. */
  briefDescriptionChars: number;
  briefParams: number;
  /** Pass 1: how many top tools of each sub-query are guaranteed a place. */
  perQueryDepth: number;
  /** Pass 2: share of the candidate budget that server expansion may use. */
  serverShare: number;
  /** Pass 2: servers larger than this bring only their lexically best tools up to this many. */
  maxToolsPerServer: number;
}

export const DEFAULT_CANDIDATE_OPTIONS: CandidateOptions = {
  detailedCount: 24,
  maxDescriptionChars: 200,
  maxParams: 8,
  compactDescriptionChars: 60,
  compactParams: 2,
  briefFrom: 100,
  briefDescriptionChars: 40,
  briefParams: 1,
  perQueryDepth: 5,
  serverShare: 0.2,
  maxToolsPerServer: 25,
};

/** No candidate line is shorter than this; once less room is left the budget counts as full. */
const MIN_LINE_TOKENS = 12;

export interface Candidate {
  /** Short id the model refers to: t1, t2, … */
  id: string;
  /** Position of the tool in the request's `tools`. */
  toolIndex: number;
  line: string;
  tokens: number;
}

interface CandidateSelection {
  candidates: Candidate[];
  /** Tokens of all candidate lines together. */
  tokens: number;
  /** True when every tool of the request is a candidate. */
  whole: boolean;
}

interface SelectionInput {
  query: string[];
  context?: string;
  tools: ToolInfo[];
  lexical: RankedTool[];
  /** Each sub-query's own lexical order (tool indices), from the lexical stage; used with two or more sub-queries. */
  bySubQuery?: readonly (readonly number[])[];
}

/** `t3 | calendar_list_events | Google Calendar | 0.82 | calendarId, timeMin | List events of a calendar…` */
interface LineDetail {
  descriptionChars: number;
  params: number;
}

/** The parts of a candidate line that depend on the tool only (not on the request): counted once, memoised. */
function lineParts(tool: ToolInfo, detail: LineDetail): { head: string; tail: string } {
  const name = sanitizeData(tool.toolName, 80);
  const server = sanitizeData(tool.serverName, 60);
  const params = parameterNames(tool, detail.params);
  const description = sanitizeData(tool.description ?? tool.title ?? '', detail.descriptionChars);
  return { head: `${name} | ${server}`, tail: `${params} | ${description}` };
}

/** Everything a line's parts depend on. */
function toolContentKey(tool: ToolInfo, detail: LineDetail): string {
  const properties = (tool.inputSchema as { properties?: unknown } | undefined)?.properties;
  const params = typeof properties === 'object' && properties !== null ? Object.keys(properties).join('\u0001') : '';
  // Only the part of the description a line is made from (sanitize.ts reads no further), so a key
  // stays short however long the description; LinePartsCache hashes whatever is still long.
  const full = tool.description ?? '';
  const description = readablePart(full, detail.descriptionChars);
  const cut = description.length < full.length ? '\u0001' : '';
  return `${detail.descriptionChars}\u0000${detail.params}\u0000${tool.toolName}\u0000${tool.serverName}\u0000${params}\u0000${description}${cut}\u0000${tool.description === undefined ? (tool.title ?? '') : ''}`;
}

/**
 * Upper bound of the tokens the request-dependent parts add to a line: the id (`t123 | `, ≤ 3
 * tokens), the lexical score and its separator (`0.82 | `, ≤ 6), the newline, and a token of
 * slack where the tokenizer merges across the joins.
 */
const ID_SCORE_TOKENS = 9;

function parameterNames(tool: ToolInfo, max: number): string {
  const properties = (tool.inputSchema as { properties?: unknown } | undefined)?.properties;
  if (typeof properties !== 'object' || properties === null) return '-';
  const names = Object.keys(properties).map((name) => sanitizeData(name, 40));
  if (names.length === 0) return '-';
  const shown = names.slice(0, max).join(', ');
  return names.length > max ? `${shown} +${names.length - max}` : shown;
}

export function selectCandidates(
  input: SelectionInput,
  budgetTokens: number,
  lineCache: LinePartsCache,
  options: CandidateOptions = DEFAULT_CANDIDATE_OPTIONS,
): CandidateSelection {
  const { tools, lexical } = input;
  // Lexical position of every tool: matched tools by rank, the rest after them in list order.
  const order: number[] = lexical.map((ranked) => ranked.index);
  const lexicalRelevance = new Map<number, number>();
  for (const ranked of lexical) lexicalRelevance.set(ranked.index, ranked.relevance);
  const matched = new Set(order);
  for (let index = 0; index < tools.length; index += 1) if (!matched.has(index)) order.push(index);
  const position = new Map<number, number>();
  order.forEach((toolIndex, at) => position.set(toolIndex, at));

  const detailed: LineDetail = { descriptionChars: options.maxDescriptionChars, params: options.maxParams };
  const compact: LineDetail = { descriptionChars: options.compactDescriptionChars, params: options.compactParams };
  const brief: LineDetail = { descriptionChars: options.briefDescriptionChars, params: options.briefParams };
  // A line's tokens: its tool-only text, counted once per distinct text and memoised per project
  // (routers resend the same list), plus a bound for the id and score.
  const lines = new Map<number, LineParts>();
  const lineOf = (toolIndex: number): LineParts => {
    let entry = lines.get(toolIndex);
    if (!entry) {
      const tool = tools[toolIndex]!;
      const at = position.get(toolIndex)!;
      const detail = at < options.detailedCount ? detailed : at < options.briefFrom ? compact : brief;
      const parts = lineCache.get(toolContentKey(tool, detail), () => lineParts(tool, detail));
      entry = { ...parts, tokens: parts.tokens + ID_SCORE_TOKENS };
      lines.set(toolIndex, entry);
    }
    return entry;
  };

  const chosen = new Set<number>();
  let used = 0;
  const add = (toolIndex: number): boolean => {
    if (chosen.has(toolIndex)) return true;
    if (budgetTokens - used < MIN_LINE_TOKENS) return false; // full: spare counting the rest
    const { tokens } = lineOf(toolIndex);
    if (used + tokens > budgetTokens) return false;
    chosen.add(toolIndex);
    used += tokens;
    return true;
  };

  // Small lists go in whole.
  let whole = true;
  for (const toolIndex of order) {
    if (!add(toolIndex)) {
      whole = false;
      break;
    }
  }
  if (!whole) {
    chosen.clear();
    used = 0;
    fillByPasses(input, order, add, () => used, budgetTokens, options);
  }

  const candidates = [...chosen]
    .sort((a, b) => position.get(a)! - position.get(b)!)
    .map((toolIndex, at) => {
      const id = `t${at + 1}`;
      const { head, tail, tokens } = lines.get(toolIndex)!;
      const line = `${id} | ${head} | ${(lexicalRelevance.get(toolIndex) ?? 0).toFixed(2)} | ${tail}`;
      return { id, toolIndex, line, tokens };
    });
  return { candidates, tokens: used, whole };
}

function fillByPasses(
  input: SelectionInput,
  order: number[],
  add: (toolIndex: number) => boolean,
  used: () => number,
  budgetTokens: number,
  options: CandidateOptions,
): void {
  const { tools, lexical, query } = input;

  // Pass 1: coverage of every sub-query (each one's own order, as the lexical stage ranked it).
  const perQuery: readonly (readonly number[])[] =
    query.length > 1 && input.bySubQuery
      ? input.bySubQuery
      : [lexical.slice(0, options.perQueryDepth).map((ranked) => ranked.index)];
  for (let depth = 0; depth < options.perQueryDepth; depth += 1) {
    for (const ranking of perQuery) {
      const toolIndex = ranking[depth];
      if (toolIndex !== undefined) add(toolIndex);
    }
  }

  // Pass 2: lexical order; a server's first appearance brings its other tools.
  const byServer = new Map<string, number[]>();
  for (const toolIndex of order) {
    const server = tools[toolIndex]!.serverName;
    const members = byServer.get(server);
    if (members) members.push(toolIndex);
    else byServer.set(server, [toolIndex]);
  }
  const serverBudget = budgetTokens * options.serverShare;
  let serverTokens = 0;
  const expanded = new Set<string>();
  for (const ranked of lexical) {
    add(ranked.index);
    const server = ranked.tool.serverName;
    if (expanded.has(server) || serverTokens >= serverBudget) continue;
    expanded.add(server);
    for (const sibling of (byServer.get(server) ?? []).slice(0, options.maxToolsPerServer)) {
      const before = used();
      if (serverTokens >= serverBudget || !add(sibling)) break;
      serverTokens += used() - before;
    }
  }

  // Pass 3: the tools that matched nothing, while room is left.
  for (const toolIndex of order.slice(lexical.length)) add(toolIndex);
}
