// What the encoder reads of a tool and of a request (its cost grows with every token).
import { describe, expect, it } from 'vitest';
import { EMBEDDED_DESCRIPTION_CHARS, EMBEDDED_QUERY_CHARS, queryText, toolText } from '../../src/semantic/tool-text.js';

describe('toolText', () => {
  it('reads the server and tool name as words, and the description up to its first sentence', () => {
    expect(
      toolText({
        toolKey: 'gcal:list_events',
        toolName: 'listEvents',
        serverName: 'gcal',
        description: 'List events in a calendar. Args: from, to. Returns JSON.',
      }),
    ).toBe('gcal list Events: List events in a calendar.');
  });

  it('leaves out generic server words, server words past three, and tool-name words the server name already says', () => {
    expect(
      toolText({
        toolKey: 'l:x',
        toolName: 'lokalise_delete_key',
        serverName: 'Lokalise MCP Server',
        description: 'Deletes a key.',
      }),
    ).toBe('Lokalise delete key: Deletes a key.');
    expect(
      toolText({
        toolKey: 'f:x',
        toolName: 'scrape',
        serverName: 'Firecrawl Web Scraping Server Pro Edition',
        description: '',
      }),
    ).toBe('Firecrawl Web Scraping scrape:');
  });

  it('collapses white space, and cuts a long first sentence at a word boundary', () => {
    const long = `${'Fetches the detailed record of '.repeat(10)}things.`;
    const text = toolText({
      toolKey: 's:t',
      toolName: 't',
      serverName: 's',
      description: `\n   Scrape   a\n\npage.\n\n**Best for:** one page`,
    });
    expect(text).toBe('s t: Scrape a page.');
    const cut = toolText({ toolKey: 's:t', toolName: 't', serverName: 's', description: long }).slice('s t: '.length);
    expect(cut.length).toBeLessThanOrEqual(EMBEDDED_DESCRIPTION_CHARS);
    expect(long.startsWith(cut)).toBe(true);
    expect(long[cut.length]).toBe(' ');
  });

  it('keeps a title, and a dotted version or name inside the first sentence', () => {
    expect(
      toolText({
        toolKey: 's:t',
        toolName: 'run',
        serverName: 'node',
        title: 'Run a script',
        description: 'Runs node.js 20.1 scripts. Then more.',
      }),
    ).toBe('node run (Run a script): Runs node.js 20.1 scripts.');
  });
});

describe('queryText', () => {
  it('collapses white space and reads at most the first EMBEDDED_QUERY_CHARS characters', () => {
    expect(queryText('  what  is on\nplate  tomorrow ')).toBe('what on plate tomorrow');
    const long = 'word '.repeat(200);
    expect(queryText(long)).toBe(long.slice(0, EMBEDDED_QUERY_CHARS).trim());
  });

  it('leaves out the words a request spends on asking and on grammar, whatever their case and punctuation', () => {
    expect(queryText('Can you please help me find the weather forecast for Paris?')).toBe(
      'find weather forecast Paris?',
    );
    expect(queryText("I'm planning a trip to Beijing, show me where to park.")).toBe(
      'planning trip Beijing, show where park.',
    );
    expect(queryText('Could You, Please, convert this PDF to text')).toBe('convert PDF text');
    // Words that say what is wanted stay, with their punctuation.
    expect(queryText('Send an email; then schedule a meeting.')).toBe('Send email; then schedule meeting.');
  });

  it('embeds a request of nothing but filler as it was', () => {
    expect(queryText('Can you help me?')).toBe('Can you help me?');
    expect(queryText('  the   a ')).toBe('the a');
  });

  it('reads a URL as its host and a file path as its file type', () => {
    expect(queryText('Summarize https://www.youtube.com/watch?v=arj7oStGLkU, then save it.')).toBe(
      'Summarize youtube.com, then save',
    ); // "it." goes with its full stop
    expect(queryText("Shorten 'http://example.com/article/12345'.")).toBe("Shorten 'example.com'.");
    expect(queryText('Save the report to /root/markdown/baidu_report.md.')).toBe('Save report md file.');
    expect(queryText('Read ./data/sales.xlsx and ~/notes/todo.txt')).toBe('Read xlsx file and txt file');
    expect(queryText('List files in /root/pdf, newest first')).toBe('List files in pdf, newest first');
    expect(queryText('Open (src/utils/file_utils.py)')).toBe('Open (py file)');
  });

  it('keeps words with a slash that are not paths: a repository, a date, a pair', () => {
    expect(queryText('Star vercel/ai on GitHub')).toBe('Star vercel/ai on GitHub');
    expect(queryText('What day was 4/19/1969?')).toBe('What day was 4/19/1969?');
    expect(queryText('and/or 24/7 support')).toBe('and/or 24/7 support');
  });
});
