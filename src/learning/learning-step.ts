import { capRelevanceDownTheList, round3, type RankedTool, type ToolInfo } from '@catalog-search/core';
import type { LearnedBoost } from './boost.js';
import { WordSupport } from './shared/shared-guards.js';

/**
 * `meta.learning`: the project's past use raised a tool of this answer, or only other projects'
 * (shared learning) did, or the project has learned but nothing here matched.
 */
export type LearningStatus = 'raised' | 'shared' | 'unchanged';

/** The learning step of one search, for a project that has taught something (src/search/pipeline.ts). */
export interface LearningStep {
  apply(
    ranked: RankedTool[],
    request: { query: readonly string[]; tools: readonly ToolInfo[] },
    maxResults: number,
  ): { ranked: RankedTool[]; status: LearningStatus | undefined };
}

/** A request's index terms (report-events.ts's requestTerms) and, in the same order, their keyed hashes (term-keys.ts). */
export interface RequestTerms {
  words: readonly string[];
  hashes: readonly string[];
}

/** Where a search's boosts come from: the project's own reports, and other projects' (k-anonymous). */
interface BoostSources {
  /** What time it is (ms), for the decay and the shared model's turns. */
  now: () => number;
  termsOf(query: readonly string[]): RequestTerms;
  own?: (terms: readonly string[], now: number) => ReadonlyMap<string, LearnedBoost>;
  /** `ranked`: the ranking after the project's own learning (common steps read its best matches' servers). */
  shared?: (
    terms: RequestTerms,
    tools: readonly ToolInfo[],
    now: number,
    ranked: readonly RankedTool[],
  ) => ReadonlyMap<string, LearnedBoost>;
}

/**
 * The step: the project's own boosts first, then other projects' evidence, which is weaker
 * (shared-model.ts). `meta.learning` says `raised` when the project's own use raised a tool,
 * `shared` when only other projects' did.
 */
export function learningStep(sources: BoostSources): LearningStep {
  return {
    apply: (ranked, request, maxResults) => {
      const now = sources.now();
      const terms = sources.termsOf(request.query);
      let learned: { ranked: RankedTool[]; status: LearningStatus | undefined } = { ranked, status: undefined };
      if (sources.own) learned = applyBoosts(ranked, request.tools, sources.own(terms.hashes, now), maxResults);
      if (sources.shared) {
        // Shared boosts never put a tool the request does not support above one it does: support as the
        // ranking before any learning gives it (shared-guards.ts).
        const more = applyBoosts(
          learned.ranked,
          request.tools,
          sources.shared(terms, request.tools, now, learned.ranked),
          maxResults,
          new WordSupport(ranked),
        );
        learned = {
          ranked: more.ranked,
          status: more.status === 'shared' ? (learned.status === 'raised' ? 'raised' : 'shared') : learned.status,
        };
      }
      return learned;
    },
  };
}

/**
 * The learning step, after the lexical (and semantic) ranking and before the rerank stage: each tool's
 * learned boost is added to its relevance (0 for a tool no word of the request matched), and the list
 * is ordered again by that sum. Tools without a boost keep their entries as they were; with no boost
 * at all, the ranking is returned as it came (same array), so a project's answer is the lexical one
 * exactly until its reports match a request.
 *
 * A tool its list marks destructive gets the cautious boost (more reports for the same lift) and is
 * never raised above a tool not so marked that the ranking it is given had placed before it: past use
 * may bring a delete up among the tools that match as well, never past a safer one (a compromised
 * agent's reports are the threat: docs/ranking.md).
 */
export function applyBoosts(
  ranked: RankedTool[],
  tools: readonly ToolInfo[],
  boosts: ReadonlyMap<string, LearnedBoost>,
  maxResults: number,
  words?: WordSupport,
): { ranked: RankedTool[]; status: LearningStatus } {
  if (boosts.size === 0) return { ranked, status: 'unchanged' };
  const positions = new Map<number, number>();
  ranked.forEach((item, position) => positions.set(item.index, position));
  const raised: Raised[] = [];
  const moved = new Set<number>();
  tools.forEach((tool, index) => {
    const learned = boosts.get(tool.toolKey);
    if (learned === undefined) return;
    const position = positions.get(index);
    const lexical = position === undefined ? undefined : ranked[position];
    const destructive = marksDestructive(tool);
    const sum = (lexical?.relevance ?? 0) + (destructive ? learned.cautiousBoost : learned.boost);
    const unnamed = words !== undefined && !words.supports(index);
    raised.push({ tool, index, lexical, learned, destructive, unnamed, sum, order: position ?? ranked.length + index });
    if (position !== undefined) moved.add(position);
  });
  if (raised.length === 0) return { ranked, status: 'unchanged' };
  keepBelowSaferTools(ranked, raised, moved);
  if (words) keepBelowNamedTools(ranked, raised, moved, words);
  // The rest keep their order, in which relevance never rises (capped down the list): merging the few
  // raised tools into it orders the whole list by relevance + boost without sorting it (ties: the
  // earlier first). Sorting all of it cost as much as the lexical ranking (ToolBench, 2,479 tools).
  raised.sort((a, b) => b.sum - a.sum || a.order - b.order);
  const ordered: RankedTool[] = [];
  // Raised in this pass (shared learning runs a second pass over the first's ranking: learning.ts).
  const mine: LearnedMatch[] = [];
  let next = 0;
  const take = () => {
    const { tool, index, lexical, learned, sum, held, heldUnnamed } = raised[next++]!;
    const match = new LearnedMatch(tool, index, lexical, sum, learned, held, heldUnnamed);
    mine.push(match);
    ordered.push(match);
  };
  ranked.forEach((item, position) => {
    if (moved.has(position)) return;
    while (
      next < raised.length &&
      (raised[next]!.sum > item.relevance || (raised[next]!.sum === item.relevance && raised[next]!.order < position))
    ) {
      take();
    }
    ordered.push(item);
  });
  while (next < raised.length) take();
  capRelevanceDownTheList(ordered);
  const shownHere = new Set<RankedTool>(mine);
  const shown = ordered.slice(0, maxResults).some((item) => shownHere.has(item));
  return { ranked: ordered, status: shown ? mine[0]!.status : 'unchanged' };
}

/**
 * Caps each raised tool that no word of the request names at the final sum of the best tool its words
 * do name (relevance above 0 in the given ranking, or raised), so that it lands after it: a shared boost
 * alone never puts a tool first over a word match (issue 48: `delete_repository` first at 0.675 with "no
 * query term matched"). Below that best match it may pass weaker ones: holding it below all of them
 * cost ToolLens more than half its gain (+0.206 → +0.093, docs/ranking.md), since its requests mostly
 * share no word with the right tool. The ranking's relevance never rises down the list, so the best
 * named tool left in place is the first: it is found from the top, reading only the tools passed.
 */
function keepBelowNamedTools(
  ranked: readonly RankedTool[],
  raised: Raised[],
  moved: ReadonlySet<number>,
  words: WordSupport,
): void {
  if (!raised.some((item) => item.unnamed)) return;
  let best = Number.NEGATIVE_INFINITY;
  for (const item of raised) if (!item.unnamed && item.sum > 0) best = Math.max(best, item.sum);
  for (const [position, item] of ranked.entries()) {
    if (!(item.relevance > best) || !(item.relevance > 0)) break;
    if (moved.has(position) || !words.supports(item.index)) continue;
    best = item.relevance;
    break;
  }
  if (best === Number.NEGATIVE_INFINITY) return;
  for (const item of raised) {
    // Where meaning or own learning had already put it above that match, it stays there, unraised.
    const ceiling = Math.max(best, item.lexical?.relevance ?? 0);
    if (!item.unnamed || item.sum <= ceiling) continue;
    item.sum = ceiling;
    item.heldUnnamed = true;
    // At the best match's sum, on the tie it comes after it.
    if (ceiling === best) item.order = Number.MAX_SAFE_INTEGER;
  }
}

/** A tool with a learned boost, before it is merged back into the ranking. */
interface Raised {
  tool: ToolInfo;
  index: number;
  lexical: RankedTool | undefined;
  learned: LearnedBoost;
  destructive: boolean;
  /** No word of the request names it (shared pass only): it may not pass a tool they name. */
  unnamed: boolean;
  /** Relevance + boost: where it goes. */
  sum: number;
  /** Its place in the ranking it was given (after all of it when it was not there): ties go to the earlier. */
  order: number;
  /** Held below a safer tool that matched as well (said in its explanation). */
  held?: boolean;
  /** Held below the tools the request's words name (said in its explanation). */
  heldUnnamed?: boolean;
}

/**
 * Only a tool whose server says `destructiveHint: true` (and not `readOnlyHint: true`, which makes the
 * other hint meaningless in MCP). Absent hints do not count here, unlike `filter.excludeDestructive`:
 * most lists carry none, and treating all their tools as destructive would only make every tool learn
 * more slowly.
 */
function marksDestructive(tool: ToolInfo): boolean {
  const hints = tool.annotations as Record<string, unknown> | undefined;
  return hints?.destructiveHint === true && hints.readOnlyHint !== true;
}

/**
 * Caps each raised destructive tool's sum at the lowest final sum of the tools not marked destructive
 * that the given ranking had placed before it (when it was not in that ranking: all of them, and the
 * safe raised tools no word matched either), so that it lands after them: a tie goes to the earlier
 * place, which they hold.
 */
function keepBelowSaferTools(ranked: readonly RankedTool[], raised: Raised[], moved: ReadonlySet<number>): void {
  if (!raised.some((item) => item.destructive)) return;
  const safeRaised = new Map<number, number>();
  let lowestUnranked = Number.POSITIVE_INFINITY;
  for (const item of raised) {
    if (item.destructive) continue;
    if (item.lexical === undefined) lowestUnranked = Math.min(lowestUnranked, item.sum);
    else safeRaised.set(item.order, item.sum);
  }
  // lowest[p]: the lowest final sum among the safe tools at places < p of the given ranking.
  const lowest: number[] = [Number.POSITIVE_INFINITY];
  ranked.forEach((item, position) => {
    const final = moved.has(position)
      ? safeRaised.get(position)
      : marksDestructive(item.tool)
        ? undefined
        : item.relevance;
    lowest.push(final === undefined ? lowest[position]! : Math.min(lowest[position]!, final));
  });
  for (const item of raised) {
    if (!item.destructive) continue;
    const inRanking = item.lexical !== undefined;
    const ceiling = inRanking ? lowest[item.order]! : Math.min(lowest.at(-1)!, lowestUnranked);
    if (item.sum < ceiling) continue;
    item.sum = ceiling;
    item.held = true;
    // Unranked safe tools come after it by place: on the tie it must come after them.
    if (!inRanking) item.order = Number.MAX_SAFE_INTEGER;
  }
}

/** A tool whose place owes something to past use: the lexical entry (if any) with the boost added. */
class LearnedMatch implements RankedTool {
  readonly score: number;
  relevance: number;

  constructor(
    readonly tool: ToolInfo,
    readonly index: number,
    private readonly lexical: RankedTool | undefined,
    sum: number,
    private readonly learned: LearnedBoost,
    private readonly held = false,
    private readonly heldUnnamed = false,
  ) {
    this.score = sum;
    this.relevance = round3(Math.min(1, sum));
  }

  get status(): LearningStatus {
    return this.learned.shared ? 'shared' : 'raised';
  }

  get explanation(): string {
    const n = this.learned.similarRequests;
    const use =
      (this.learned.commonStep
        ? "raised by shared learning: often used with its server's tools in other projects"
        : this.learned.shared
          ? 'raised by shared learning: used for similar requests in other projects'
          : `raised by past use: used for ${n} similar request${n === 1 ? '' : 's'}`) +
      (this.held ? ', kept below the tools not marked destructive that match as well' : '') +
      (this.heldUnnamed ? ", kept below the best tool the request's words match" : '');
    return this.lexical ? `${this.lexical.explanation}; ${use}` : `${use}; no query term matched its text`;
  }
}
