// Turns the model's grades into the final ranking. Results are always built from our own tool
// objects and our lexical ranking; the model contributes only an order, a grade and a one-line
// plain-text explanation, so it cannot add tools or change any tool field.
//
// Grade scale and calibrated relevance (fixed, so relevance means the same across requests):
//   grade 3 essential  -> 0.85–0.98
//   grade 2 useful     -> 0.55–0.80
//   grade 1 marginal   -> 0.20–0.45
// Within a grade the model's order decides (best first); relevance steps down from the top of the
// band by 1/10 of its width per place and stops at the bottom.
// Tools the model left out follow in lexical order (tools that neither matched lexically nor were
// chosen are not listed, as in the BM25-only ranking). Their relevance is their lexical relevance,
// capped at the bottom of the lowest band the model used (a tool it did not choose never looks
// better than one it chose). When the model saw a tool and, in a complete answer, left it out,
// it judged it irrelevant (grade 0): that relevance is capped at 0.05. Last, relevance is made
// non-increasing down the list so that order and relevance never disagree.
import { capRelevanceDownTheList, type RankedTool, type ToolInfo } from '@catalog-search/core';
import { plainTextLine } from './sanitize.js';
import type { CandidateGrade } from './types.js';

interface GradeBand {
  label: string;
  low: number;
  high: number;
}

export const GRADE_BANDS: Record<number, GradeBand> = {
  3: { label: 'essential', low: 0.85, high: 0.98 },
  2: { label: 'useful', low: 0.55, high: 0.8 },
  1: { label: 'marginal', low: 0.2, high: 0.45 },
};

/** Relevance cap for a tool the model saw and left out of a complete answer. */
export const LEFT_OUT_CAP = 0.05;
const MAX_EXPLANATION_CHARS = 200;

interface MergeInput {
  tools: ToolInfo[];
  lexical: RankedTool[];
  /** Valid grades in the model's order (unknown ids and duplicates already dropped). */
  grades: CandidateGrade[];
  /** Tools the model was shown. */
  shown: ReadonlySet<number>;
  /** The model's answer was complete (not cut by the deadline or a broken stream). */
  complete: boolean;
}

export function mergeRanking({ tools, lexical, grades, shown, complete }: MergeInput): RankedTool[] {
  const lexicalByIndex = new Map<number, RankedTool>();
  for (const ranked of lexical) lexicalByIndex.set(ranked.index, ranked);

  const positive = grades.filter((entry) => entry.grade >= 1);
  const byGrade = [3, 2, 1].flatMap((grade) => positive.filter((entry) => entry.grade === grade));
  const placeInGrade = new Map<number, number>();
  const result: RankedTool[] = byGrade.map((entry) => {
    const band = GRADE_BANDS[entry.grade]!;
    const place = placeInGrade.get(entry.grade) ?? 0;
    placeInGrade.set(entry.grade, place + 1);
    const relevance = Math.max(band.low, band.high - ((band.high - band.low) / 10) * place);
    const why = plainTextLine(entry.why, MAX_EXPLANATION_CHARS);
    return {
      tool: tools[entry.toolIndex]!,
      index: entry.toolIndex,
      score: lexicalByIndex.get(entry.toolIndex)?.score ?? 0,
      relevance,
      explanation: why ? `LLM (${band.label}): ${why}` : `LLM graded ${band.label}`,
    };
  });

  const chosen = new Set(byGrade.map((entry) => entry.toolIndex));
  const lowestGrade = byGrade.length > 0 ? Math.min(...byGrade.map((entry) => entry.grade)) : 1;
  const cap = GRADE_BANDS[lowestGrade]!.low;
  for (const ranked of lexical) {
    if (chosen.has(ranked.index)) continue;
    const leftOut = complete && shown.has(ranked.index);
    result.push({
      tool: ranked.tool,
      index: ranked.index,
      score: ranked.score,
      relevance: Math.min(ranked.relevance, leftOut ? LEFT_OUT_CAP : cap),
      explanation: leftOut ? `${ranked.explanation}; not chosen by the LLM` : ranked.explanation,
    });
  }

  capRelevanceDownTheList(result);
  return result;
}
