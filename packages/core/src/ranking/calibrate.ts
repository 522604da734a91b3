import { round3 } from '../numbers/round.js';
import { idf } from './bm25f.js';

/**
 * Calibrated relevance: a saturating function of how much of the request a tool covers, measured in
 * absolute terms so that it means the same in every request, whatever the other tools are.
 *
 *   coverage  = Σ over matched query terms of idf'(term) × quality(best field it matched in)
 *               ÷ Σ over all query terms of idf'(term)
 *   share     = query terms the tool matches ÷ query terms
 *   relevance = 1 − exp(−GAIN × coverage^CURVE × share^SHARE_WEIGHT)   (an exact tool-name hit: at least EXACT_RELEVANCE)
 *
 * idf' is BM25's idf (bm25f.ts) with the list size floored at REFERENCE_LIST_SIZE, so that in a tiny list a
 * common word still weighs little, and a query word no tool contains weighs the most: a request that
 * the list cannot serve matches little of its idf mass and gets low relevance, never 1.0 by default.
 * Quality is per field (FIELD_PARAMS): a hit in the tool name says more than a hit in a parameter's help.
 *
 * The curve says "nothing fits" clearly: a tool matching few of the request's words (little coverage,
 * a small share) stays low, and one covering a good part of the request rises fast. Chosen on eval's
 * calibration report, answerable requests against requests on another domain's catalog (docs/ranking.md
 * has the figures of this curve and the one before): a `minRelevance` of about 0.3 keeps most answers and
 * drops most no-fits.
 */
const REFERENCE_LIST_SIZE = 200;
const GAIN = 8;
const CURVE = 1.25;
const SHARE_WEIGHT = 0.5;
export const EXACT_RELEVANCE = 0.97;

export function calibrationIdf(docFreq: number, listSize: number): number {
  return idf(docFreq, Math.max(listSize, REFERENCE_LIST_SIZE));
}

export function relevanceFromCoverage(coverage: number, share: number): number {
  if (!(coverage > 0) || !(share > 0)) return 0;
  return round3(1 - Math.exp(-GAIN * Math.min(coverage, 1) ** CURVE * Math.min(share, 1) ** SHARE_WEIGHT));
}

/**
 * Makes relevance never rise down a ranked list: each entry's is capped at the one above it. The
 * lexical order is by BM25F score, which weighs evidence a little differently from the calibrated
 * coverage, and the LLM stage's merge orders by grade; capping keeps every relevance an understatement,
 * never an overstatement, and the top one as it was. The service and the client both use it.
 */
export function capRelevanceDownTheList(ranked: readonly { relevance: number }[]): void {
  for (let i = 1; i < ranked.length; i += 1)
    ranked[i]!.relevance = Math.min(ranked[i]!.relevance, ranked[i - 1]!.relevance);
}

/** capRelevanceDownTheList on a ranking's relevance column (ranking/fuse.ts's FusedRanking). */
export function capRelevanceColumn(relevance: Float64Array): void {
  for (let i = 1; i < relevance.length; i += 1) relevance[i] = Math.min(relevance[i]!, relevance[i - 1]!);
}
