import { stem as porter2 } from 'porter2';
import type { ToolInfo } from '../schemas.js';
import { lexiconEntries, lexiconKey } from './lexicon.js';

/**
 * What a request asks for and what a tool does, in the coarse terms that keep a question off a tool
 * that deletes: "what's on my calendar tomorrow" reads, so list_events goes before delete_event. A tool
 * reads when its annotations say `readOnlyHint: true` or its name starts with a reading verb; it
 * deletes when they say `destructiveHint: true` or its name starts with a deleting verb. Annotations
 * are untrusted hints, but both only ever lower a tool that deletes below one that reads.
 */
export const Action = { Unknown: 0, Reads: 1, Changes: 2, Deletes: 3 } as const;
export type Action = (typeof Action)[keyof typeof Action];

const stems = (words: string): ReadonlySet<string> => new Set(words.split(' ').map((word) => porter2(word)));
const READING_VERBS = stems(
  'list get read search find fetch query show view describe lookup check count download retrieve browse inspect ' +
    'preview scan peek watch export summarize summarise',
);
const DELETING_VERBS = stems(
  'delete remove drop destroy purge erase cancel revoke wipe truncate kill terminate uninstall unsubscribe overwrite',
);
const CHANGING_VERBS = stems(
  'create add update edit set write send post move rename merge insert upload put patch modify replace reply invite ' +
    'schedule book start stop run execute trigger close open archive assign commit push',
);

// A request that asks to see: a question word or mark (full-width too: "明日の予定は？"), or a reading
// verb, and no word that asks for a change.
const READ_CUES = new Set(
  (
    'what whats which when where who whom how list show check find view see display any get read search look ' +
    'is are do does did have has whose'
  ).split(' '),
);
const CHANGE_CUES = new Set(
  (
    'create make new add send post delete remove cancel update change edit move rename write set schedule book ' +
    'invite reply upload merge open start run execute drop erase modify reschedule save put clear archive close ' +
    'assign replace insert kick launch trigger'
  ).split(' '),
);

// A request's words are read by several rules on every search; most have no apostrophe, and a look
// costs less than a replace (docs/performance.md#lexicon-pairs-and-keys).
const APOSTROPHE = /['’]/;
const withoutApostrophes = (word: string): string => (APOSTROPHE.test(word) ? word.replace(/['’]/g, '') : word);

/** Whether a request's words (lower case, as written) ask to see something rather than change it. */
export function asksToRead(words: readonly string[], text: string): boolean {
  let reads = /[?？]$/.test(text.trimEnd());
  for (const word of words) {
    const bare = withoutApostrophes(word);
    if (CHANGE_CUES.has(bare)) return false;
    if (READ_CUES.has(bare)) reads = true;
  }
  return reads;
}

// Words ending in "s" that are no plural of a thing.
const NOT_PLURAL = new Set('does goes is was has this its yes us thus whats thats lets heres theres'.split(' '));

/**
 * The plural nouns of a request that asks about many of something ("what channels do we have", "my
 * linear tickets"): one that asks to see, or names no action; none for a request that asks for a change.
 */
export function pluralsAskedAbout(words: readonly string[], text: string): string[] {
  const plurals: string[] = [];
  for (const word of words) {
    const bare = withoutApostrophes(word);
    if (CHANGE_CUES.has(bare)) return [];
    if (isPlural(bare)) plurals.push(bare);
  }
  return plurals.length > 0 && (asksToRead(words, text) || leadingActions(words).size === 0) ? plurals : [];
}

function isPlural(word: string): boolean {
  if (word.length < 4 || !word.endsWith('s') || word.endsWith('ss') || NOT_PLURAL.has(word)) return false;
  const stem = porter2(word);
  return word === `${stem}s` || word === `${stem}es` || (word.endsWith('ies') && stem.endsWith('i'));
}

/** Whether a stem is a verb that says what a tool does (read, change, delete). */
export function isActionVerb(stem: string): boolean {
  return DELETING_VERBS.has(stem) || READING_VERBS.has(stem) || CHANGING_VERBS.has(stem);
}

/** What a tool does, from its annotations, else the first word of its name (`firstNameTerm`, a stem). */
export function toolAction(tool: ToolInfo, firstNameTerm: string | undefined): Action {
  const annotations = tool.annotations as Record<string, unknown> | undefined;
  if (annotations?.destructiveHint === true) return Action.Deletes;
  if (firstNameTerm === undefined) return annotations?.readOnlyHint === true ? Action.Reads : Action.Unknown;
  if (DELETING_VERBS.has(firstNameTerm)) return Action.Deletes;
  if (READING_VERBS.has(firstNameTerm)) return Action.Reads;
  if (annotations?.readOnlyHint === true) return Action.Reads;
  if (CHANGING_VERBS.has(firstNameTerm)) return Action.Changes;
  return Action.Unknown;
}

// Words a request may start with before its action ("please can you create ...").
const LEAD_IN = new Set(
  'please pls kindly can could would will you i we me help want need to lets let just hey hi ok'.split(' '),
);

/**
 * Per word of a request (lower case, in order, with its clause): whether it stands where a verb of
 * command does, first in its clause after a lead-in ("please open ...", "then cancel ...") or right
 * after "to" ("I need to cancel ..."). An everyday verb is read as the API's verb only there: "open" in
 * "what bugs are still open" is no request to create.
 */
export function inVerbPosition(words: readonly { lower: string; clause: number }[]): boolean[] {
  let clause = -1;
  let started = false;
  return words.map(({ lower, clause: at }, w) => {
    if (at !== clause) {
      clause = at;
      started = false;
    }
    const bare = withoutApostrophes(lower);
    const afterTo = w > 0 && words[w - 1]!.lower === 'to' && words[w - 1]!.clause === at;
    if (!started && !LEAD_IN.has(bare)) {
      started = true;
      return true;
    }
    return afterTo && !LEAD_IN.has(bare);
  });
}

/**
 * The action a request starts with, as the stems a tool name may start with: the first word after a
 * lead-in when it is a verb (one a tool name starts with, or one the lexicon's verbs know), with what
 * the lexicon says it means ("open": open, create). Empty when the request starts otherwise.
 */
export function leadingActions(words: readonly string[]): ReadonlySet<string> {
  const at = words.findIndex((word) => !LEAD_IN.has(withoutApostrophes(word)));
  if (at < 0) return NO_ACTIONS;
  const first = words[at]!;
  // Two words the lexicon knows together ("get rid", "look up") are the action, not the first alone.
  const pair = at + 1 < words.length ? lexiconEntries(lexiconKey(`${first} ${words[at + 1]!}`)) : [];
  const verbs = (pair.length > 0 ? pair : lexiconEntries(lexiconKey(first))).filter(
    (entry) => entry.family === 'verbs',
  );
  const own = porter2(first);
  if (verbs.length === 0 && !READING_VERBS.has(own) && !DELETING_VERBS.has(own) && !CHANGING_VERBS.has(own))
    return NO_ACTIONS;
  const actions = new Set(pair.length > 0 ? [] : [own]);
  for (const entry of verbs) for (const { terms } of entry.targets) if (terms.length === 1) actions.add(terms[0]!);
  return actions;
}

const NO_ACTIONS: ReadonlySet<string> = new Set();
