import { TAG_BOOST, type SearchBoost } from '../schemas.js';
import { round3 } from '../numbers/round.js';
import type { RankedTool } from '../ranking/types.js';
import { matchingTags, tagSet } from './tool-filter.js';

/**
 * After ranking: `boost.tags` raises tools with matching tags (seed 004's +0.2 per tag, added to the
 * calibrated relevance and capped at 1), then `minRelevance` leaves out what is below it. A boost
 * applies only to tools that match the request at all (relevance > 0): it reorders what matched,
 * it never brings in a tool for its tags alone. The order is by relevance afterwards (before the cap
 * at 1), stable, so tools without a boost keep their order.
 */
export interface RelevanceAdjustments {
  boost?: SearchBoost | undefined;
  minRelevance?: number | undefined;
}

/** Whether the ranking must see every tool (a boost can lift any tool into the answer). */
export function needsWholeRanking(adjustments: RelevanceAdjustments): boolean {
  return (adjustments.boost?.tags?.length ?? 0) > 0;
}

export function adjustRelevance(ranked: readonly RankedTool[], adjustments: RelevanceAdjustments): RankedTool[] {
  let adjusted: RankedTool[] = [...ranked];
  const boostTags = adjustments.boost?.tags;
  if (boostTags !== undefined && boostTags.length > 0) {
    const tags = tagSet(boostTags);
    let boostedAny = false;
    // The order reads the boosted relevance before the cap at 1: good matches sit near 1 (the
    // calibration saturates), and a boost must still lift a tagged one above an untagged one.
    const orderBy = new Map<RankedTool, number>();
    adjusted = adjusted.map((entry) => {
      const count = entry.relevance > 0 ? matchingTags(entry.tool, tags) : 0;
      if (count === 0) return entry;
      boostedAny = true;
      const boost = round3(TAG_BOOST * count);
      const boosted: RankedTool = {
        tool: entry.tool,
        index: entry.index,
        score: entry.score,
        relevance: Math.min(1, round3(entry.relevance + boost)),
        explanation: `${entry.explanation}; boosted +${boost} for ${count === 1 ? 'a matching tag' : `${count} matching tags`} (boost.tags)`,
      };
      orderBy.set(boosted, entry.relevance + boost);
      return boosted;
    });
    const key = (entry: RankedTool) => orderBy.get(entry) ?? entry.relevance;
    if (boostedAny) adjusted.sort((a, b) => key(b) - key(a));
  }
  const min = adjustments.minRelevance;
  return min === undefined || min <= 0 ? adjusted : adjusted.filter((entry) => entry.relevance >= min);
}
