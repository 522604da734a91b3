import { isActionVerb } from '../everyday/intent.js';
import type { Corpus } from './corpus.js';
import { FIELD_COUNT, FIELDS } from './fields.js';

const SERVER_FIELD = FIELDS.indexOf('server');
// In actionIds: not read yet, and no name.
const UNREAD = -2;
const NONE = -1;

/**
 * Per prepared list, each tool's action term id (see actionTerm), read on first need: the everyday
 * rules ask it of every matched tool of every sub-query, and it depends on the list alone. Held as
 * long as the list is; the rank cache counts the bytes (actionTermsBytes).
 */
const actionIds = new WeakMap<Corpus, Int32Array>();

/**
 * The first word of a tool's name after its server's name, where the name says what it does:
 * git_commit commits, playwright_navigate navigates, discord_delete_message deletes. A name that is
 * only server words keeps its first, and a verb is never skipped (search_in_excel of "excel-search").
 */
export function actionTerm(corpus: Corpus, doc: number): string | undefined {
  let ids = actionIds.get(corpus);
  if (ids === undefined) actionIds.set(corpus, (ids = new Int32Array(corpus.size).fill(UNREAD)));
  if (ids[doc] === UNREAD) ids[doc] = readActionTerm(corpus, doc);
  const id = ids[doc]!;
  return id === NONE ? undefined : corpus.vocabulary.termOf(id);
}

/** Bytes of the action terms read for this list, if any (for the rank cache's accounting). */
export function actionTermsBytes(corpus: Corpus): number {
  return actionIds.get(corpus)?.byteLength ?? 0;
}

function readActionTerm(corpus: Corpus, doc: number): number {
  const { vocabulary } = corpus;
  const start = corpus.toolStarts[doc]!;
  const end = start + corpus.fieldLengths[doc * FIELD_COUNT]!;
  if (end === start) return NONE;
  let p = start;
  while (
    p < end - 1 &&
    inField(corpus, doc, corpus.tokens[p]!, SERVER_FIELD) &&
    !isActionVerb(vocabulary.termOf(corpus.tokens[p]!))
  )
    p += 1;
  return corpus.tokens[p]!;
}

/** Whether tool `doc` has term `id` in field `field` (FIELDS order). */
export function inField(corpus: Corpus, doc: number, id: number, field: number): boolean {
  let start = corpus.toolStarts[doc]!;
  for (let f = 0; f < field; f += 1) start += corpus.fieldLengths[doc * FIELD_COUNT + f]!;
  const end = start + corpus.fieldLengths[doc * FIELD_COUNT + field]!;
  for (let p = start; p < end; p += 1) if (corpus.tokens[p] === id) return true;
  return false;
}
