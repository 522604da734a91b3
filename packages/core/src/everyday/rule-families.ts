/**
 * The families of rules that read a request as people write it (docs/ranking.md, "Everyday
 * requests"): each can be left out with `RankOptions.without` to measure what it adds.
 * - `case`: a word with inner capitals (GitHub) is also the whole word, counted once.
 * - `joins`: hyphenated and joined forms meet (e-mail/email, log in/login).
 * - `abbreviations`: the tool world's short forms (repos, db, dir, pr, msg, config).
 * - `verbs`: everyday verbs for the API's (open/make → create, cancel → delete, what's → list).
 * - `nouns`: everyday nouns for the API's (folder ↔ directory, meeting ↔ event, inbox ↔ email).
 * - `values`: an argument value (a URL, an address, a file name, a path) counts as its kind (url, file).
 * - `typos`: a word no tool has, one edit from a word the list has, reads as that word (calender).
 * - `intent`: a question or a read request prefers tools that read over tools that change or delete.
 * - `vague`: a request that names only a server or product gets a relevance that says so.
 */
export const RULE_FAMILIES = [
  'case',
  'joins',
  'abbreviations',
  'verbs',
  'nouns',
  'values',
  'typos',
  'intent',
  'vague',
] as const;
export type RuleFamily = (typeof RULE_FAMILIES)[number];
