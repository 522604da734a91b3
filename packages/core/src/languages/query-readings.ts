/**
 * How a request's terms group into its words ("units") and which other terms may stand for a word
 * ("readings"): a Japanese word's English glosses (cross-lingual.ts), an everyday word's API words or
 * a product name's parts (everyday/readings.ts). Ranking scores each unit once per tool: the better of
 * its own terms' match and its best reading's match, a reading counting a share of what its terms add
 * (ranking/readings-score.ts).
 */
export interface QueryReadings {
  /** The request's words, as written, for units 0 .. words.length - 1 ("会議", "repos"). */
  words: string[];
  /** Reading terms (stems), distinct and none among the request's own terms. */
  terms: string[];
  /** Per reading term: its unit. */
  termWord: number[];
  /** Per reading term: the word it stands for ("meeting", "repository"), for explanations. */
  termGloss: string[];
  /**
   * Per reading term: its reading (terms of one reading add up: "pull" + "request" for "pr"). Absent:
   * every term is a reading of its own with the translation's shares (cross-lingual).
   */
  termReading?: Int32Array;
  /** Per reading: how it counts. */
  readings?: ReadingRule[];
  /** Per positive term of the request (QueryTerms.terms): its unit, or -1. */
  unitOfTerm: Int32Array;
  unitCount: number;
  /** Per unit, when some are optional: 1 for a unit that counts only if the list has one of its terms. */
  optional?: Uint8Array;
  /**
   * Per positive term, when some are: 1 for a term that counts only through its unit's readings (the
   * words of an idiom: "get rid" means delete, never get).
   */
  silent?: Uint8Array;
}

export interface ReadingRule {
  /** Share of its terms' BM25F score, and of their calibration evidence, that the reading counts. */
  score: number;
  coverage: number;
  /** Used only when no tool of the list has the unit's own terms (a product name's parts). */
  fallback: boolean;
  /** Counts for a tool only when it has every term of the reading (a phrase such as "web search"). */
  whole?: boolean;
}
