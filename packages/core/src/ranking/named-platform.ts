import { codePointPrefix, RANKED_QUERY_CHARS } from '../text/text-length.js';
import { analyzeQuery } from '../text/tokenize.js';
import type { Corpus } from './corpus.js';
import { FIELD_COUNT, FIELDS } from './fields.js';
import type { FusedRanking } from './fuse.js';

/**
 * Context picks the platform. A short request ("logs", "create a card") fits the same capability of
 * every platform in a list; the request's `context` ("we deploy on Railway", "our board is in Trello")
 * says which one. A context word names a platform when it is in the server name of some tools but of
 * few servers (at most PLATFORM_SERVER_SHARE of the list's servers, at least one): "railway" is, "we"
 * and "deploy" are not (no server is named so, or too many are). The tools that matched the request and
 * whose server name, tool name or title holds such a word gain PLATFORM_BOOST of their score: among
 * tools that serve the request about equally, the named platform's come first, while a far better match
 * elsewhere stays ahead. Relevance is unchanged: it says how much of the request a tool covers, and the
 * context is not the request. A general rule: no platform or tool name is listed anywhere.
 */
const PLATFORM_BOOST = 0.3;
const PLATFORM_SERVER_SHARE = 0.25;

const SERVER = FIELDS.indexOf('server');
const NAME = FIELDS.indexOf('name');
const TITLE = FIELDS.indexOf('title');

/** Raises the score of the entries on a platform the context names, then re-sorts (best first). */
export function favourNamedPlatforms(corpus: Corpus, fused: FusedRanking, context: string | undefined): void {
  if (context === undefined || context.trim() === '' || fused.length === 0) return;
  const ids = new Set<number>();
  const { vocabulary } = corpus;
  for (const term of analyzeQuery(codePointPrefix(context, RANKED_QUERY_CHARS), { vocabulary }).terms) {
    const id = vocabulary.knownTermId(term);
    if (id >= 0) ids.add(id);
  }
  if (ids.size === 0) return;
  // Per context word: the servers whose name holds it.
  const serversOf = new Map<number, Set<number>>();
  for (let doc = 0; doc < corpus.size; doc += 1) {
    const [from, to] = fieldSpan(corpus, doc, SERVER);
    for (let at = from; at < to; at += 1) {
      const id = corpus.tokens[at]!;
      if (!ids.has(id)) continue;
      let servers = serversOf.get(id);
      if (servers === undefined) serversOf.set(id, (servers = new Set()));
      servers.add(corpus.servers[doc]!);
    }
  }
  const most = Math.max(1, Math.floor(PLATFORM_SERVER_SHARE * corpus.serverCount));
  const platform = new Set([...serversOf].filter(([, servers]) => servers.size <= most).map(([id]) => id));
  if (platform.size === 0) return;
  let raised = false;
  for (let i = 0; i < fused.length; i += 1) {
    if (fused.relevance[i]! > 0 && namesPlatform(corpus, fused.index[i]!, platform)) {
      fused.score[i]! *= 1 + PLATFORM_BOOST;
      raised = true;
    }
  }
  if (raised) fused.sortByScore();
}

/** Whether the tool's server name, name or title holds one of the platform words. */
function namesPlatform(corpus: Corpus, doc: number, platform: ReadonlySet<number>): boolean {
  for (const field of [SERVER, NAME, TITLE]) {
    const [from, to] = fieldSpan(corpus, doc, field);
    for (let at = from; at < to; at += 1) if (platform.has(corpus.tokens[at]!)) return true;
  }
  return false;
}

/** Where a tool's tokens of one field are in corpus.tokens (fields are stored in FIELDS order). */
function fieldSpan(corpus: Corpus, doc: number, field: number): [number, number] {
  let from = corpus.toolStarts[doc]!;
  for (let f = 0; f < field; f += 1) from += corpus.fieldLengths[doc * FIELD_COUNT + f]!;
  return [from, from + corpus.fieldLengths[doc * FIELD_COUNT + field]!];
}
