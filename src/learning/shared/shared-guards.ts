// What shared learning may not do, whatever k projects reported (docs/privacy.md, "Poisoning by
// other projects"): raise a tool that deletes or withdraws something, or raise a tool that none of the
// request's own words names above one that some do. Five fresh projects put `delete_repository`
// first for benign requests of a sixth, with "no query term matched" (issue 48).
import { tokenize, type ToolInfo } from '@catalog-search/core';

/**
 * Words that say a tool destroys or withdraws something, as index terms (core's tokenizer stems them
 * alike, so `deletes`, `deleting` and `deletion` are one term). "drop" is the word, never "dropbox"
 * or "dropdown", which the tokenizer keeps whole.
 */
const DESTRUCTIVE_TERMS = new Set(
  tokenize(
    'delete deletes deleted deleting deletion remove removes removed removing removal drop drops dropped ' +
      'dropping overwrite overwrites overwriting overwritten revoke revokes revoked revoking revocation ' +
      'destroy destroys destroyed erase erases erased purge purges purged wipe wipes wiped truncate truncates',
  ),
);

/**
 * A tool shared learning never raises: its list marks it `destructiveHint: true` (without
 * `readOnlyHint: true`), or its name, title or description says it deletes, removes, drops,
 * overwrites, revokes, destroys, erases, purges, wipes or truncates. Words rather than hints alone,
 * because most lists carry no hints; a description that mentions removing in passing costs that tool
 * only the shared raise (its own project's learning still applies).
 */
export function sharedMayNotRaise(tool: ToolInfo): boolean {
  const hints = tool.annotations as Record<string, unknown> | undefined;
  if (hints?.destructiveHint === true && hints.readOnlyHint !== true) return true;
  const text = `${tool.toolName} ${tool.title ?? ''} ${tool.description ?? ''}`;
  return tokenize(text).some((term) => DESTRUCTIVE_TERMS.has(term));
}

/**
 * Whether the request's own words (its index terms, with the cross-lingual field's) name a tool: one
 * of them is a term of its name, title, server or description. A tool they do not name is never put
 * above one they do by shared learning. Each tool's terms are read once while its list is held.
 */
export class WordSupport {
  static readonly #termsOf = new WeakMap<ToolInfo, ReadonlySet<string>>();
  readonly #words: ReadonlySet<string>;

  constructor(words: readonly string[]) {
    this.#words = new Set(words);
  }

  supports(tool: ToolInfo): boolean {
    let terms = WordSupport.#termsOf.get(tool);
    if (terms === undefined) {
      terms = new Set(tokenize(`${tool.toolName} ${tool.title ?? ''} ${tool.serverName} ${tool.description ?? ''}`));
      WordSupport.#termsOf.set(tool, terms);
    }
    for (const word of this.#words) if (terms.has(word)) return true;
    return false;
  }
}
