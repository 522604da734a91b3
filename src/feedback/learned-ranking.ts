import { capRelevanceDownTheList, type RankedTool, type ToolInfo } from '@catalog-search/core';
import type { LearnedBoost } from './usage-model.js';

/** `meta.learning`: past use raised a tool of this answer, or the project has learned but nothing here matched. */
export type LearningStatus = 'raised' | 'unchanged';

/**
 * The learning step, after the lexical (and semantic) ranking and before the rerank stage: each tool's
 * learned boost is added to its relevance (0 for a tool no word of the request matched), and the list
 * is ordered again by that sum. Tools without a boost keep their entries as they were; with no boost
 * at all, the ranking is returned as it came (same array), so a project's answer is the lexical one
 * exactly until its reports match a request.
 */
export function applyLearning(
  ranked: RankedTool[],
  tools: readonly ToolInfo[],
  boosts: ReadonlyMap<string, LearnedBoost>,
  maxResults: number,
): { ranked: RankedTool[]; status: LearningStatus } {
  if (boosts.size === 0) return { ranked, status: 'unchanged' };
  const positions = new Map<number, number>();
  ranked.forEach((item, position) => positions.set(item.index, position));
  const raised: Array<{ item: RankedTool; sum: number; order: number }> = [];
  const moved = new Set<number>();
  tools.forEach((tool, index) => {
    const learned = boosts.get(tool.toolKey);
    if (learned === undefined) return;
    const position = positions.get(index);
    const lexical = position === undefined ? undefined : ranked[position];
    const sum = (lexical?.relevance ?? 0) + learned.boost;
    raised.push({
      item: new LearnedMatch(tool, index, lexical, sum, learned),
      sum,
      order: position ?? ranked.length + index,
    });
    if (position !== undefined) moved.add(position);
  });
  if (raised.length === 0) return { ranked, status: 'unchanged' };
  // The rest keep their order, in which relevance never rises (capped down the list): merging the few
  // raised tools into it orders the whole list by relevance + boost without sorting it (ties: the
  // earlier first). Sorting all of it cost as much as the lexical ranking (ToolBench, 2,479 tools).
  raised.sort((a, b) => b.sum - a.sum || a.order - b.order);
  const ordered: RankedTool[] = [];
  let next = 0;
  ranked.forEach((item, position) => {
    if (moved.has(position)) return;
    while (
      next < raised.length &&
      (raised[next]!.sum > item.relevance || (raised[next]!.sum === item.relevance && raised[next]!.order < position))
    ) {
      ordered.push(raised[next++]!.item);
    }
    ordered.push(item);
  });
  while (next < raised.length) ordered.push(raised[next++]!.item);
  capRelevanceDownTheList(ordered);
  const shown = ordered.slice(0, maxResults).some((item) => item instanceof LearnedMatch);
  return { ranked: ordered, status: shown ? 'raised' : 'unchanged' };
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
  ) {
    this.score = sum;
    this.relevance = Math.round(Math.min(1, sum) * 1000) / 1000;
  }

  get explanation(): string {
    const n = this.learned.similarRequests;
    const use = `raised by past use: used for ${n} similar request${n === 1 ? '' : 's'}`;
    return this.lexical ? `${this.lexical.explanation}; ${use}` : `${use}; no query term matched its text`;
  }
}
