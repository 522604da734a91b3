// An example MCP router built on the client: it lists only the two meta-tools of the router's design
// (seed 000: tool_discovery, tool_execute), answers tool_discovery by collecting the tools/list of
// every upstream server and searching them (cloud, or locally when the cloud fails), forwards
// tool_execute to the server that owns the tool, and reports how that call went (reportOutcome), so
// the project's next searches rank the tools that worked higher.
//
//   npm start                # the service; in development mode it keeps its key in .dev-jwt-secret
//   CATALOG_SEARCH_URL=http://127.0.0.1:8080 CATALOG_SEARCH_TOKEN=$(npm run -s mint-token -- --project demo) \
//     node --import tsx examples/router/router.ts        # an MCP server on stdio (newline-delimited JSON-RPC)
//
// (Against a deployment, mint-token needs its AUTH_JWT_SECRET, or --private-key.) The upstream servers
// here are in-process stand-ins (demo-servers.ts); test/examples/router.test.ts drives this router
// against the real service, and runs it as a program as above.
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import {
  createCatalogSearchClient,
  handleToolDiscovery,
  TOOL_DISCOVERY_NAME,
  TOOL_DISCOVERY_TOOL,
  TOOL_EXECUTE_NAME,
  TOOL_EXECUTE_TOOL,
  toServers,
  type CatalogSearchClient,
} from '@catalog-search/client';
import { DEMO_SERVERS, type UpstreamServer } from './demo-servers.js';

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
  // toolKey -> the requestId of the last tool_discovery that offered it: the search a tool_execute of
  // it is the outcome of. At most one entry per upstream tool.
  const offeredBy = new Map<string, string>();

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
      // Keep which search offered each tool: a tool_execute of it then reports that search's outcome.
      const requestId = result._meta?.requestId;
      if (requestId !== undefined)
        for (const { toolKey } of result.structuredContent?.results ?? []) offeredBy.set(toolKey, requestId);
      return result;
    }
    if (name === TOOL_EXECUTE_NAME) {
      const { toolKey, arguments: toolArgs } = (args ?? {}) as { toolKey?: unknown; arguments?: unknown };
      const separator = typeof toolKey === 'string' ? toolKey.indexOf(':') : -1;
      const server = separator > 0 ? byId.get((toolKey as string).slice(0, separator)) : undefined;
      if (server === undefined)
        return {
          content: [{ type: 'text', text: `No tool ${JSON.stringify(toolKey)}: find one with tool_discovery.` }],
          isError: true,
        };
      const key = toolKey as string;
      // This call is the outcome of the search that offered the tool: `succeeded` is the strongest evidence.
      const report = (outcome: 'succeeded' | 'failed') => {
        const requestId = offeredBy.get(key);
        if (requestId !== undefined) catalog.reportOutcome({ requestId, toolKey: key, outcome });
      };
      try {
        const result = await server.callTool(key.slice(separator + 1), (toolArgs ?? {}) as Record<string, unknown>);
        report(result.isError ? 'failed' : 'succeeded');
        return result;
      } catch (error) {
        report('failed');
        return { content: [{ type: 'text', text: `${key} failed: ${String(error)}` }], isError: true };
      }
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

/** One line of newline-delimited JSON-RPC, or why it is not a request. */
function readRequest(line: string): JsonRpcRequest | string {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return `not JSON (${line.length > 80 ? `${line.slice(0, 80)}…` : line})`;
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return 'not a JSON-RPC request object';
  if (typeof (message as { method?: unknown }).method !== 'string') return 'a JSON-RPC request without a method';
  return message as JsonRpcRequest;
}

// Run as a program: an MCP server on stdio.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const catalog = createCatalogSearchClient({
    baseUrl: process.env.CATALOG_SEARCH_URL ?? 'http://127.0.0.1:8080',
    token: process.env.CATALOG_SEARCH_TOKEN,
    timeoutMs: 1500,
    onSearch: (event) => {
      const line = `tool search ${event.requestId}: ${event.source} in ${Math.round(event.durationMs)} ms`;
      if (!event.configurationProblem) {
        process.stderr.write(`${line}${event.fallbackReason ? ` (${event.fallbackReason})` : ''}\n`);
        return;
      }
      // Every search goes local until this is fixed: say so, and how.
      const fix =
        event.fallbackReason === 'unauthorized' || event.fallbackReason === 'forbidden'
          ? 'mint a new CATALOG_SEARCH_TOKEN (a development server with a new key refuses older tokens)'
          : 'check CATALOG_SEARCH_URL';
      process.stderr.write(
        `${line}: THE CLOUD REFUSED THIS ROUTER (${event.fallbackReason}); answers are local: ${fix}\n`,
      );
    },
  });
  const router = createRouter(catalog, DEMO_SERVERS);
  for await (const line of createInterface({ input: process.stdin })) {
    if (line.trim() === '') continue;
    const request = readRequest(line);
    if (typeof request === 'string') {
      // A client's bad line must not end the session: say why on stderr, answer JSON-RPC's error (id null).
      process.stderr.write(`skipped an input line: ${request}\n`);
      const code = request.startsWith('not JSON') ? -32700 : -32600;
      process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message: request } })}\n`);
      continue;
    }
    const answer = await router.handle(request);
    if (answer !== undefined) process.stdout.write(`${JSON.stringify(answer)}\n`);
  }
  // The client closed stdin: deliver the queued outcome reports (or give up on them) before exiting.
  await catalog.flushReports({ timeoutMs: 5000 });
  const pending = catalog.pendingReports();
  if (pending > 0) process.stderr.write(`${pending} outcome reports not sent\n`);
}
