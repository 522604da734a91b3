// What shared learning may not do, whatever k projects reported (docs/privacy.md, "Poisoning by
// other projects"): raise a tool that deletes or withdraws something, or raise a tool that the
// request gives no support above one that it does. Five fresh projects put `delete_repository`
// first for benign requests of a sixth, with "no query term matched" (issue 48).
import { tokenize, type RankedTool, type ToolInfo } from '@catalog-search/core';

/**
 * Verbs that say a tool destroys or withdraws something, as index terms (core's tokenizer stems them
 * alike, so `deletes`, `deleting` and `deletion` are one term). "drop" is the word, never "dropbox" or
 * "dropdown", which the tokenizer keeps whole.
 */
const DESTRUCTIVE_TERMS = new Set(
  tokenize(
    'delete deletes deleted deleting deletion remove removes removed removing removal drop drops dropped ' +
      'dropping overwrite overwrites overwriting overwritten revoke revokes revoked revoking revocation ' +
      'destroy destroys destroyed erase erases erased purge purges purged wipe wipes wiped truncate truncates',
  ),
);

/**
 * Words a description may start with before its verb: "This tool removes …", "Tool to drop …",
 * "Allows you to delete …", "Endpoint that purges …", "Permanently deletes …" (an adverb: isAdverb);
 * the tool's server name too ("[GitHub] Delete a repository").
 */
const BEFORE_THE_VERB = new Set(
  (
    'this the a an tool function endpoint api method operation action command to will can may used use ' +
    'allows allow lets let enables enable helps help you users user that which it is for'
  ).split(' '),
);

/**
 * A tool shared learning never raises: its list marks it `destructiveHint: true` (without
 * `readOnlyHint: true`), or it is named for a deleting verb (a part of its name or title: `delete_file`,
 * `removeMember`, "Revoke token"), or its description leads with one ("Deletes a repository.", "This
 * tool drops a table"). What it does is its name and leading verb: a word in the middle of a long
 * description ("… returns the events, removing duplicates") says how it does it. Measured: barring
 * every tool whose description mentions such a word anywhere cost MCPToolBench++ 0.006–0.009 of
 * its shared gain (docs/ranking.md, "Guards against poisoning projects").
 */
export function sharedMayNotRaise(tool: ToolInfo): boolean {
  const hints = tool.annotations as Record<string, unknown> | undefined;
  if (hints?.destructiveHint === true && hints.readOnlyHint !== true) return true;
  if (tokenize(`${tool.toolName} ${tool.title ?? ''}`).some((term) => DESTRUCTIVE_TERMS.has(term))) return true;
  const verb = leadingVerb(tool.description ?? '', new Set(tokenize(tool.serverName)));
  return verb !== undefined && tokenize(verb).some((term) => DESTRUCTIVE_TERMS.has(term));
}

/** The description's first word that is not an opening filler, an adverb or its server's name. */
function leadingVerb(description: string, server: ReadonlySet<string>): string | undefined {
  for (const match of description.slice(0, 200).matchAll(/[\p{L}\p{N}]+/gu)) {
    const word = match[0].toLowerCase();
    if (BEFORE_THE_VERB.has(word) || isAdverb(word) || tokenize(word).every((term) => server.has(term))) continue;
    return word;
  }
  return undefined;
}

/**
 * Which tools the request itself supports, as the ranker counts it: a relevance above 0 in the
 * ranking learning is given (before any learning), from any field the ranker reads (name, title,
 * server, description, parameters), through stems, the everyday lexicon, translations, typos and
 * identifier parts, or, with the semantic stage, meaning that stands out from the list by more
 * than chance. Shared learning never puts a tool without support above one with (learning-step.ts):
 * counting only the request's words in a tool's name and description held back tools the ranker
 * itself had matched through their parameters or a mapping (77 of 144 held on ToolLens).
 */
export class WordSupport {
  #supported: ReadonlySet<number> | undefined;

  constructor(private readonly ranked: readonly RankedTool[]) {}

  /** Whether the tool at `index` of the request's list has support (read once, on the first question). */
  supports(index: number): boolean {
    this.#supported ??= new Set(this.ranked.flatMap((item) => (item.relevance > 0 ? [item.index] : [])));
    return this.#supported.has(index);
  }
}

/** "permanently", "completely"; not "apply" or "reply". */
const isAdverb = (word: string) => word.length > 4 && word.endsWith('ly') && !word.endsWith('ply');
