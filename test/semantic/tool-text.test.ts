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
  it('collapses white space and keeps the first EMBEDDED_QUERY_CHARS characters', () => {
    expect(queryText('  what is   on my\nplate  ')).toBe('what is on my plate');
    expect(queryText('word '.repeat(200))).toHaveLength(EMBEDDED_QUERY_CHARS);
  });
});
