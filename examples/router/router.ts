// An example MCP router built on the client: it lists only the two meta-tools of the router's design
// (seed 000: tool_discovery, tool_execute), answers tool_discovery by collecting the tools/list of
// every upstream server and searching them (cloud, or locally when the cloud fails), and forwards
// tool_execute to the server that owns the tool.
//
//   CATALOG_SEARCH_URL=http://127.0.0.1:8080 CATALOG_SEARCH_TOKEN=$(npm run -s mint-token -- --project demo) \
//     node --import tsx examples/router/router.ts        # an MCP server on stdio (newline-delimited JSON-RPC)
//
// The upstream servers here are in-process stand-ins (demo-servers.ts); test/examples/router.test.ts
// drives this router against the real service.
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import {
  createCatalogSearchClient,
  handleToolDiscovery,
  TOOL_DISCOVERY_NAME,
  TOOL_DISCOVERY_TOOL,
  toServers,
  type CatalogSearchClient,
} from '@catalog-search/client';
import { DEMO_SERVERS, type UpstreamServer } from './demo-servers.js';

export const TOOL_EXECUTE_TOOL = {
  name: 'tool_execute',
  description: 'Run a tool found with tool_discovery: pass its toolKey and the arguments its inputSchema asks for.',
  inputSchema: {
    type: 'object',
    properties: { toolKey: { type: 'string' }, arguments: { type: 'object' } },
    required: ['toolKey'],
  },
} as const;

interface JsonRpcRequest {
  jsonrpc: '2.0';
  id?: string | number;
  method: string;
  params?: { name?: string; arguments?: unknown; [key: string]: unknown };
}

export interface Router {
  /** Answers one JSON-RPC request (undefined for notifications). */
  handle(message: JsonRpcRequest): Promise<Record<string, unknown> | undefined>;
}

export function createRouter(catalog: CatalogSearchClient, upstreams: UpstreamServer[]): Router {
  const byId = new Map(upstreams.map((server) => [server.serverId, server]));

  async function callTool(name: string | undefined, args: unknown): Promise<Record<string, unknown>> {
    if (name === TOOL_DISCOVERY_NAME) {
      // The Available Tool List, collected at request time (seed 000). A real router filters here by
      // token, project, tool_permissions and server status before anything is searched.
      const servers = toServers(
        await Promise.all(
          upstreams.map(async (server) => ({
            serverId: server.serverId,
            serverName: server.serverName,
            listed: await server.listTools(),
          })),
        ),
      );
      const result = await handleToolDiscovery(catalog, args, servers);
      // ---- Outcome reporting (the feedback API, POST /v1/catalog/feedback) goes here. ----
      // Keep result._meta.requestId with the tool keys offered; when the agent then calls tool_execute
      // on one of them (or none), report that outcome with the client's reportOutcome. Not in this
      // client version yet: another change adds it.
      return result;
    }
    if (name === TOOL_EXECUTE_TOOL.name) {
      const { toolKey, arguments: toolArgs } = (args ?? {}) as { toolKey?: unknown; arguments?: unknown };
      const separator = typeof toolKey === 'string' ? toolKey.indexOf(':') : -1;
      const server = separator > 0 ? byId.get((toolKey as string).slice(0, separator)) : undefined;
      if (server === undefined)
        return {
          content: [{ type: 'text', text: `No tool ${JSON.stringify(toolKey)}: find one with tool_discovery.` }],
          isError: true,
        };
      // ---- Outcome reporting: this call is the outcome of the discovery that offered toolKey. ----
      return server.callTool((toolKey as string).slice(separator + 1), (toolArgs ?? {}) as Record<string, unknown>);
    }
    return { content: [{ type: 'text', text: `Unknown tool ${name}` }], isError: true };
  }

  return {
    async handle(message) {
      const reply = (result: unknown) => ({ jsonrpc: '2.0', id: message.id, result });
      switch (message.method) {
        case 'initialize':
          return reply({
            protocolVersion: '2025-06-18',
            capabilities: { tools: {} },
            serverInfo: { name: 'example-router', version: '0.1.0' },
          });
        case 'tools/list':
          // Only the meta-tools: the servers' own tools are found through tool_discovery.
          return reply({ tools: [TOOL_DISCOVERY_TOOL, TOOL_EXECUTE_TOOL] });
        case 'tools/call':
          return reply(await callTool(message.params?.name, message.params?.arguments));
        default:
          if (message.id === undefined) return undefined; // notifications/initialized and the like
          return {
            jsonrpc: '2.0',
            id: message.id,
            error: { code: -32601, message: `Method not found: ${message.method}` },
          };
      }
    },
  };
}

// Run as a program: an MCP server on stdio.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const catalog = createCatalogSearchClient({
    baseUrl: process.env.CATALOG_SEARCH_URL ?? 'http://127.0.0.1:8080',
    token: process.env.CATALOG_SEARCH_TOKEN,
    timeoutMs: 1500,
    onSearch: (event) =>
      process.stderr.write(
        `tool search ${event.requestId}: ${event.source} in ${Math.round(event.durationMs)} ms${event.fallbackReason ? ` (${event.fallbackReason})` : ''}\n`,
      ),
  });
  const router = createRouter(catalog, DEMO_SERVERS);
  for await (const line of createInterface({ input: process.stdin })) {
    if (line.trim() === '') continue;
    const answer = await router.handle(JSON.parse(line) as JsonRpcRequest);
    if (answer !== undefined) process.stdout.write(`${JSON.stringify(answer)}\n`);
  }
}
