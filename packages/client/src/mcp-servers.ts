import type { McpServerTools, McpTool } from '@catalog-search/core';

/** The result of an MCP `tools/list` call (one page). */
export interface ListToolsResult {
  tools: McpTool[];
  nextCursor?: string;
}

/** One server as a router knows it: its id, an optional display name, and its `tools/list` result (or every page of it). */
export interface ListedServer {
  serverId: string;
  serverName?: string;
  listed: ListToolsResult | readonly ListToolsResult[];
}

/**
 * The request's grouped form (`servers`) from the `tools/list` results of each server, tools passed
 * as the servers returned them: the service and the local fallback read each tool leniently and
 * key it `serverId:name`.
 *
 *   client.search({ query: [task], servers: toServers([{ serverId: 'github', listed: await github.listTools() }]) })
 */
export function toServers(servers: Iterable<ListedServer>): McpServerTools[] {
  const grouped: McpServerTools[] = [];
  for (const { serverId, serverName, listed } of servers) {
    const pages: readonly ListToolsResult[] = Array.isArray(listed) ? listed : [listed as ListToolsResult];
    const tools = pages.flatMap((page) => (Array.isArray(page?.tools) ? page.tools : []));
    grouped.push(serverName === undefined ? { serverId, tools } : { serverId, serverName, tools });
  }
  return grouped;
}
