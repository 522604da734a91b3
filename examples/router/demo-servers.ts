// Three stand-ins for the MCP servers a router connects to (files, mail, calendar): each answers
// tools/list with MCP Tool objects and tools/call with a text result. A real router holds MCP client
// sessions instead (e.g. the MCP SDK's Client over stdio or Streamable HTTP); the router only needs
// these two calls of them.
import type { ListToolsResult } from '@catalog-search/client';

export interface UpstreamServer {
  serverId: string;
  serverName: string;
  listTools(): Promise<ListToolsResult>;
  callTool(
    name: string,
    args: Record<string, unknown>,
  ): Promise<{ content: Array<{ type: 'text'; text: string }>; isError?: boolean }>;
}

function demoServer(serverId: string, serverName: string, tools: ListToolsResult['tools']): UpstreamServer {
  return {
    serverId,
    serverName,
    listTools: async () => ({ tools }),
    callTool: async (name, args) =>
      tools.some((tool) => tool.name === name)
        ? { content: [{ type: 'text', text: `${serverName}.${name} called with ${JSON.stringify(args)}` }] }
        : { content: [{ type: 'text', text: `unknown tool ${name}` }], isError: true },
  };
}

const object = (properties: Record<string, unknown>, required: string[]) => ({ type: 'object', properties, required });

export const DEMO_SERVERS: UpstreamServer[] = [
  demoServer('files', 'Filesystem', [
    {
      name: 'read_file',
      description: 'Read the complete contents of a file as text.',
      inputSchema: object({ path: { type: 'string' } }, ['path']),
      annotations: { readOnlyHint: true },
    },
    {
      name: 'write_file',
      description: 'Create or overwrite a file with new content.',
      inputSchema: object({ path: { type: 'string' }, content: { type: 'string' } }, ['path', 'content']),
      annotations: { destructiveHint: true },
    },
    {
      name: 'list_directory',
      description: 'List the files and folders in a directory.',
      inputSchema: object({ path: { type: 'string' } }, ['path']),
      annotations: { readOnlyHint: true },
    },
  ]),
  demoServer('mail', 'Mail', [
    {
      name: 'send_email',
      description: 'Send an email to one or more recipients.',
      inputSchema: object(
        { to: { type: 'array', items: { type: 'string' } }, subject: { type: 'string' }, body: { type: 'string' } },
        ['to', 'subject'],
      ),
    },
    {
      name: 'search_inbox',
      description: 'Search received emails by sender, subject or text.',
      inputSchema: object({ query: { type: 'string' } }, ['query']),
      annotations: { readOnlyHint: true },
    },
  ]),
  demoServer('calendar', 'Calendar', [
    {
      name: 'create_event',
      description: 'Schedule a calendar event and invite attendees.',
      inputSchema: object(
        {
          title: { type: 'string' },
          start: { type: 'string', format: 'date-time' },
          attendees: { type: 'array', items: { type: 'string' } },
        },
        ['title', 'start'],
      ),
    },
    {
      name: 'list_events',
      description: 'List upcoming calendar events in a time range.',
      inputSchema: object({ from: { type: 'string' }, to: { type: 'string' } }, []),
      annotations: { readOnlyHint: true },
    },
  ]),
];
