import { Action, asksToRead, leadingActions, pluralsAskedAbout, toolAction } from '../everyday/intent.js';
import { actionTerm, inField } from './action-terms.js';
import type { QueryTerms } from '../text/tokenize.js';
import { termOfWord } from '../text/vocabulary.js';
import type { Corpus } from './corpus.js';
import { FIELDS } from './fields.js';
import type { RuleFamily } from '../everyday/rule-families.js';
import type { ToolInfo } from '../schemas.js';

/** One sub-query's scores as scoreSubQuery has them before server affinity and exact names. */
interface Scored {
  corpus: Corpus;
  query: QueryTerms;
  text: string;
  /** Matched tools (any order). */
  order: readonly number[];
  scores: Float64Array;
  relevance: Float64Array;
  termCount: number;
}

// A request that names only a server or product ("slack") says which tools, not which one: their
// relevance stays below what a request naming the action gets (docs/ranking.md, "Everyday requests").
const SERVER_ONLY_RELEVANCE = 0.5;
// For a request that asks to see something: a tool that changes keeps this share of its score, one that
// deletes this share, and one that deletes is never first while a tool that does not matched.
const CHANGES_SHARE = 0.9;
const DELETES_SHARE = 0.5;
const BELOW_FIRST = 0.99;

const SERVER_FIELD = FIELDS.indexOf('server');
const NAME_FIELD = FIELDS.indexOf('name');

/**
 * The rules that read the request as a whole (RULE_FAMILIES `vague` and `intent`): a request naming only
 * a server gets relevance that says so, and a question prefers tools that read. Returns the tools whose
 * relevance was held down for naming only their server.
 */
export function applyEverydayRules(
  scored: Scored,
  tools: readonly ToolInfo[] | undefined,
  without: readonly RuleFamily[],
): Set<number> {
  const serverOnly = without.includes('vague') ? new Set<number>() : holdServerOnly(scored);
  if (!without.includes('intent') && tools && asksToRead(scored.query.words, scored.text)) preferReading(scored, tools);
  if (!without.includes('intent')) preferListing(scored);
  if (!without.includes('verbs')) favourSameAction(scored);
  return serverOnly;
}

/** Tools whose server field holds every word of the request: relevance at most SERVER_ONLY_RELEVANCE. */
function holdServerOnly({ corpus, query, order, relevance, termCount }: Scored): Set<number> {
  const held = new Set<number>();
  const { terms, readings } = query;
  if (terms.length === 0 || query.crossLingual || termCount > terms.length) return held;
  // A word that only a reading matched (an optional "show") names an action: not vague.
  if (readings && readings.unitCount > terms.length) return held;
  const ids = terms.map((term) => corpus.vocabulary.knownTermId(term));
  if (ids.some((id) => id < 0)) return held;
  for (const doc of order) {
    if (relevance[doc]! <= SERVER_ONLY_RELEVANCE || !allInServerField(corpus, doc, ids)) continue;
    relevance[doc] = SERVER_ONLY_RELEVANCE;
    held.add(doc);
  }
  return held;
}

const inServerField = (corpus: Corpus, doc: number, id: number): boolean => inField(corpus, doc, id, SERVER_FIELD);

/** Whether tool `doc`'s server field has every one of `ids` (a loop: a closure per tool was its cost). */
function allInServerField(corpus: Corpus, doc: number, ids: readonly number[]): boolean {
  for (const id of ids) if (!inServerField(corpus, doc, id)) return false;
  return true;
}
const inNameField = (corpus: Corpus, doc: number, id: number): boolean => inField(corpus, doc, id, NAME_FIELD);

// A tool whose name starts with the action the request starts with gains this factor: "open a pull
// request" means create_pull_request, not merge_pull_request (whose description says "open").
const SAME_ACTION = 1.15;

/** Tools named for the request's leading action (its first word, or what the lexicon says it means). */
function favourSameAction({ corpus, query, order, scores }: Scored): void {
  const actions = leadingActions(query.words);
  if (actions.size === 0) return;
  for (const doc of order) {
    const first = actionTerm(corpus, doc);
    if (first !== undefined && actions.has(first)) scores[doc]! *= SAME_ACTION;
  }
}

// A tool that lists what a request asks about in the plural gains this factor.
const LISTS_MANY = 1.1;
const LIST = 'list';

/**
 * A request about many of something ("what channels do we have"): a tool named for listing them
 * (list_channels) goes before one that gets one of them (get_channel_history).
 */
function preferListing({ corpus, query, text, order, scores }: Scored): void {
  const ids = pluralsAskedAbout(query.words, text).map((word) => corpus.vocabulary.knownTermId(termOfWord(word) ?? ''));
  if (!ids.some((id) => id >= 0)) return;
  for (const doc of order)
    if (actionTerm(corpus, doc) === LIST && ids.some((id) => id >= 0 && inNameField(corpus, doc, id)))
      scores[doc]! *= LISTS_MANY;
}

/** A request that asks to see: tools that change or delete step back, and one that deletes is never first. */
function preferReading({ corpus, order, scores }: Scored, tools: readonly ToolInfo[]): void {
  let bestKept = 0;
  const deleting: number[] = [];
  for (const doc of order) {
    const action = toolAction(tools[doc]!, actionTerm(corpus, doc));
    if (action === Action.Deletes) {
      scores[doc]! *= DELETES_SHARE;
      deleting.push(doc);
      continue;
    }
    if (action === Action.Changes) scores[doc]! *= CHANGES_SHARE;
    bestKept = Math.max(bestKept, scores[doc]!);
  }
  if (bestKept > 0) for (const doc of deleting) scores[doc] = Math.min(scores[doc]!, BELOW_FIRST * bestKept);
}
