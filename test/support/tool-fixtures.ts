import type { ToolInfo } from '@catalog-search/core';

const tool = (serverId: string, serverName: string, toolName: string, description: string, params: string[] = []): ToolInfo => ({
  toolKey: `${serverId}:${toolName}`,
  toolName,
  serverName,
  description,
  inputSchema: { type: 'object', properties: Object.fromEntries(params.map((name) => [name, { type: 'string' }])) },
});

/** A small catalog of everyday MCP tools across a few servers. */
export const everydayTools: ToolInfo[] = [
  tool('gcal', 'Google Calendar', 'calendar_list_events', 'List events on a calendar between two times.', ['calendarId', 'timeMin', 'timeMax']),
  tool('gcal', 'Google Calendar', 'calendar_create_event', 'Create an event on a calendar.', ['calendarId', 'summary', 'start', 'end']),
  tool('slack', 'Slack', 'slack_post_message', 'Post a message to a Slack channel.', ['channel', 'text']),
  tool('slack', 'Slack', 'slack_list_channels', 'List the channels of the workspace.', []),
  tool('github', 'GitHub', 'create_issue', 'Open a new issue in a GitHub repository.', ['owner', 'repo', 'title', 'body']),
  tool('github', 'GitHub', 'list_pull_requests', 'List pull requests of a repository.', ['owner', 'repo', 'state']),
  tool('fs', 'Filesystem', 'read_file', 'Read a text file from disk.', ['path']),
  tool('fs', 'Filesystem', 'write_file', 'Write text to a file on disk.', ['path', 'content']),
  tool('weather', 'Weather', 'get_forecast', 'Weather forecast for a city for the next days.', ['city', 'days']),
  tool('mail', 'Gmail', 'send_email', 'Send an email message to recipients.', ['to', 'subject', 'body']),
];

/** `count` synthetic tools over `servers` servers with distinct vocabulary. */
export function syntheticTools(count: number, servers = Math.ceil(count / 10)): ToolInfo[] {
  const verbs = ['list', 'get', 'create', 'update', 'delete', 'search', 'export', 'sync'];
  const nouns = ['invoice', 'ticket', 'contact', 'document', 'report', 'event', 'channel', 'repository', 'image', 'order', 'payment', 'shipment'];
  return Array.from({ length: count }, (_, at) => {
    const server = at % servers;
    const verb = verbs[at % verbs.length]!;
    const noun = nouns[Math.floor(at / verbs.length) % nouns.length]!;
    return tool(
      `srv${server}`,
      `Service ${server}`,
      `${verb}_${noun}_${at}`,
      `${verb[0]!.toUpperCase()}${verb.slice(1)} a ${noun} record in service ${server}. Returns the ${noun} with its id, owner, status, timestamps and a short summary of what changed.`,
      ['id', 'owner', 'status', 'limit', 'cursor'],
    );
  });
}
