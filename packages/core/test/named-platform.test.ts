// Context picks the platform: equivalent tools on several platforms, a short request, and a context
// that names one of them.
import { describe, expect, it } from 'vitest';
import { rankTools, type ToolInfo } from '../src/index.js';

const platforms = ['Railway', 'Render', 'Vercel'];
const tools: ToolInfo[] = platforms.flatMap((platform) => [
  {
    toolKey: `${platform.toLowerCase()}:get_logs`,
    toolName: 'get_logs',
    serverName: `${platform} MCP Server`,
    description: 'Get the logs of a deployment.',
  },
  {
    toolKey: `${platform.toLowerCase()}:list_services`,
    toolName: 'list_services',
    serverName: `${platform} MCP Server`,
    description: 'List the services of a project.',
  },
]);
const trello: ToolInfo[] = ['Trello', 'Jira'].map((platform) => ({
  toolKey: `${platform.toLowerCase()}:create_card`,
  toolName: 'create_card',
  serverName: platform,
  description: 'Create a card on a board.',
}));

const keys = (query: string, list: ToolInfo[], context?: string) =>
  rankTools({ query: [query], tools: list, ...(context === undefined ? {} : { context }) }).map(
    (ranked) => ranked.tool.toolKey,
  );

describe('context picks the platform', () => {
  it('ranks the named platform’s tool first among equivalent ones, whichever it is and wherever it is in the list', () => {
    expect(keys('show the logs', tools)[0]).toBe('railway:get_logs'); // list order breaks the tie without context
    expect(keys('show the logs', tools, 'We deploy on Render.')[0]).toBe('render:get_logs');
    expect(keys('show the logs', tools, 'our app runs on vercel')[0]).toBe('vercel:get_logs');
    expect(keys('create a card', trello, 'Our board is in Jira')[0]).toBe('jira:create_card');
    expect(keys('create a card', trello, 'Our board is in Trello')[0]).toBe('trello:create_card');
  });

  it('keeps relevance and a better match elsewhere: the context says which platform, not what the request is', () => {
    const plain = rankTools({ query: ['show the logs'], tools });
    const named = rankTools({ query: ['show the logs'], tools, context: 'We deploy on Render' });
    expect(named[0]!.relevance).toBe(plain[0]!.relevance);
    // A tool that serves the request on Railway stays above a Render tool that does not serve it.
    expect(keys('show the logs', tools, 'We deploy on Render').indexOf('railway:get_logs')).toBeLessThan(
      keys('show the logs', tools, 'We deploy on Render').indexOf('render:list_services'),
    );
  });

  it('words that name no server, or most servers, change nothing', () => {
    const base = keys('show the logs', tools);
    expect(keys('show the logs', tools, 'we deploy every day and read logs often')).toEqual(base);
    expect(keys('show the logs', tools, 'it is an MCP server')).toEqual(base);
  });
});
