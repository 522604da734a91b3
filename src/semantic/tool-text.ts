// What the encoder reads of a tool, and of a request. The embedded encoder's cost grows with the tokens
// it reads (a fixed part per text plus a part per token), so a tool's text keeps what says what the tool
// does and leaves out what repeats or pads it: fewer tokens, a list embedded sooner, and eval's NDCG@10
// within noise on every set. Figures: docs/ranking.md#semantic-stage ("What is embedded").
import { REQUEST_FILLER, type ToolInfo } from '@catalog-search/core';

/** Description characters embedded at most, within its first sentence. */
export const EMBEDDED_DESCRIPTION_CHARS = 120;

/** Request characters embedded per sub-query: requests are one to several sentences, and all of it counts. */
export const EMBEDDED_QUERY_CHARS = 300;

/** Server-name words embedded at most (after the generic ones): "Firecrawl Web Scraping Server" → "Firecrawl Web Scraping". */
const SERVER_WORDS = 3;

/**
 * Words every MCP server name may carry that say nothing of what it does. Each costs the encoder a
 * token or two per tool.
 */
const GENERIC_SERVER_WORDS = new Set(['mcp', 'server', 'servers']);

/** Identifiers as words: `list_events` / `listEvents` → "list events". */
function words(identifier: string): string[] {
  return identifier
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_\-./:()[\]{}]+/g, ' ')
    .split(/\s+/)
    .filter((word) => word !== '');
}

/** Runs of white space as one space: the encoder reads every space as a token of its own. */
function collapsed(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * The description's first sentence (up to `EMBEDDED_DESCRIPTION_CHARS`): what the tool does. What
 * follows is mostly how to call it (arguments, examples, caveats), which pulls the meaning away from
 * the task and costs tokens.
 */
function firstSentence(description: string): string {
  const text = collapsed(description);
  const end = /[.!?](?=\s|$)/.exec(text);
  const sentence = end ? text.slice(0, end.index + 1) : text;
  return sentence.length <= EMBEDDED_DESCRIPTION_CHARS
    ? sentence
    : sentence.slice(0, EMBEDDED_DESCRIPTION_CHARS).replace(/\s+\S*$/, '');
}

/**
 * The text embedded for a tool: its server and name as words (the tool name's words that repeat the
 * server's left out), its title, and its description's first sentence, e.g. "gcal list events: List events
 * in a Google Calendar between two dates." Parameters are left out: their names and help add words that
 * pull the meaning away from the task.
 */
export function toolText(tool: ToolInfo): string {
  const server = words(String(tool.serverName))
    .filter((word) => !GENERIC_SERVER_WORDS.has(word.toLowerCase()))
    .slice(0, SERVER_WORDS);
  const known = new Set(server.map((word) => word.toLowerCase()));
  const name = words(String(tool.toolName)).filter((word) => !known.has(word.toLowerCase()));
  const head = [...server, ...name].join(' ').slice(0, 200);
  const title =
    typeof tool.title === 'string' && tool.title.trim() !== '' ? ` (${collapsed(tool.title).slice(0, 100)})` : '';
  const description = typeof tool.description === 'string' ? firstSentence(tool.description) : '';
  return `${head}${title}: ${description}`.trim();
}

/** Punctuation that may open or close a word of a request: `'https://…'.`, `(/root/a.md)`. */
const WORD_PARTS = /^([("'`[]*)(.*?)([)"'`\],.;:!?]*)$/;

/**
 * A URL as its host and a file path as its file type: "https://www.youtube.com/watch?v=arj7oStGLkU" →
 * "youtube.com" (24 tokens → 4), "/root/markdown/baidu_report.md" → "md file" (16 → 2). What tool fits
 * is in the site and the kind of file; the rest of a link or path is identifiers the encoder reads piece
 * by piece, a large share of some sets' tokens (docs/ranking.md#semantic-stage, "What is embedded").
 * Anything else is returned as it was.
 */
function shortWord(word: string): string {
  const [, open = '', core = '', close = ''] = WORD_PARTS.exec(word) ?? [];
  const url = /^(?:[a-z][a-z0-9+.-]*:\/\/|www\.)([^/?#]+)/i.exec(core);
  if (url) return `${open}${url[1]!.replace(/^www\./i, '')}${close}`;
  const path =
    /^(?:~|\.{1,2})?\/[^/]/.test(core) || (/^[\w.-]+(?:\/[\w.-]+){2,}\/?$/.test(core) && /[a-z]/i.test(core));
  if (!path) return word;
  const file = core.replace(/\/+$/, '').split('/').pop() ?? '';
  const type = /\.(\w{1,5})$/.exec(file);
  return `${open}${type ? `${type[1]} file` : file}${close}`;
}

/**
 * The text embedded for a sub-query, in the service and in eval alike (so that eval measures the
 * ranking served): its first
 * `EMBEDDED_QUERY_CHARS` characters with white space collapsed, URLs and file paths shortened
 * (`shortWord`) and core's REQUEST_FILLER words left out (compared in lower case, without trailing
 * punctuation; left out, they shorten eval's requests with its NDCG@10 within noise on every set), e.g. "Can you save the summary to /root/markdown/cv.md?" →
 * "save summary md file?"; a request of nothing but filler is embedded as it was. Fewer tokens, so less
 * encoder CPU, with eval's warm NDCG@10 within noise on every set; shorter cuts (a lower character cap,
 * or the first sentence only) lose ranking on ToolBench, whose requests ask for several tools one
 * sentence after another. Figures: docs/ranking.md#semantic-stage ("What is embedded").
 */
export function queryText(query: string): string {
  const text = collapsed(query).slice(0, EMBEDDED_QUERY_CHARS);
  const kept = text
    .split(' ')
    .map(shortWord)
    .filter((word) => word !== '' && !REQUEST_FILLER.has(word.toLowerCase().replace(/[,.;:!?]+$/, '')))
    .join(' ');
  return kept === '' ? text : kept;
}
