import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import {
  DEFAULT_MAX_RESULTS,
  rankTools,
  toSearchResult,
  type ToolListSearchRequest,
  type SearchResult,
  type ToolInfo,
} from '@catalog-search/core';

/** What a test server saw: headers and parsed body of each request. */
export interface SeenRequest {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingMessage['headers'];
  body: unknown;
  /** Bytes received on the wire (before gunzip); set also for chunked bodies, which have no Content-Length. */
  bytes: number;
}

export interface LoopbackServer {
  baseUrl: string;
  seen: SeenRequest[];
  close(): Promise<void>;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, body: unknown) => void;

/** A real HTTP server on 127.0.0.1 and an ephemeral port; `handler` decides how to (mis)behave. */
export async function startServer(handler: Handler): Promise<LoopbackServer> {
  const seen: SeenRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const text = (req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // keep the raw text
      }
      seen.push({ method: req.method, url: req.url, headers: req.headers, body, bytes: raw.length });
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port that refuses connections: bound once, then closed. */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const type = status >= 400 ? 'application/problem+json' : 'application/json';
  res.writeHead(status, { 'content-type': type, ...headers });
  res.end(JSON.stringify(body));
}

export function problem(status: number, title: string, detail: string): Record<string, unknown> {
  return { type: 'about:blank', title, status, detail, code: title.toUpperCase().replace(/\W+/g, '_') };
}

export const TOOLS: ToolInfo[] = [
  {
    toolKey: 'github:create_issue',
    toolName: 'create_issue',
    serverName: 'GitHub',
    description: 'Open a new issue in a GitHub repository',
  },
  {
    toolKey: 'github:list_pull_requests',
    toolName: 'list_pull_requests',
    serverName: 'GitHub',
    description: 'List pull requests of a repository',
  },
  {
    toolKey: 'slack:post_message',
    toolName: 'post_message',
    serverName: 'Slack',
    description: 'Post a message to a Slack channel',
  },
  {
    toolKey: 'calendar:create_event',
    toolName: 'create_event',
    serverName: 'Google Calendar',
    description: 'Create a calendar event with attendees',
  },
  {
    toolKey: 'fs:read_file',
    toolName: 'read_file',
    serverName: 'Filesystem',
    description: 'Read the contents of a file',
  },
  {
    toolKey: 'jira:create_ticket',
    toolName: 'create_ticket',
    serverName: 'Jira',
    description: 'Create a Jira ticket (issue) in a project',
  },
];

export const REQUEST: ToolListSearchRequest = {
  query: ['create an issue in the repository'],
  tools: TOOLS,
  maxResults: 3,
};

/** The ranking the fallback must produce, computed straight from core (not through the client). */
export function expectedLocalResults(request: ToolListSearchRequest): SearchResult[] {
  return rankTools(request, { limit: request.maxResults ?? DEFAULT_MAX_RESULTS, maxDescriptionChars: 2000 }).map(
    toSearchResult,
  );
}

/** A valid cloud answer that differs from the local ranking, so tests can tell the two apart. */
export function cloudAnswer(requestId = 'cloud-request'): { results: SearchResult[]; meta: Record<string, unknown> } {
  return {
    results: [
      {
        toolKey: 'jira:create_ticket',
        toolName: 'create_ticket',
        serverName: 'Jira',
        relevance: 0.9,
        explanation: 'llm',
      },
    ],
    meta: { ranker: 'llm', requestId },
  };
}

/** A request whose JSON is well over COMPRESSION_THRESHOLD: the client streams and gzips it. */
export function largeRequest(count = 400): ToolListSearchRequest {
  return {
    query: ['create an issue'],
    tools: Array.from({ length: count }, (_, i) => ({
      toolKey: `srv${i}:tool_${i}`,
      toolName: `tool_${i}`,
      serverName: `Server ${i}`,
      description: `Tool number ${i} does one particular thing with issues, files and messages.`,
    })),
  };
}
