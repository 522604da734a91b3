// Records test/fixtures/v1/replay.json from the real service (listening on loopback). Run it once
// per API major version: `tsx scripts/record-v1-replay.ts`. Within v1 the recording is never
// refreshed to make a failing replay pass: a failing replay means the change is breaking (v2).
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../src/app.js';
import { parseConfig } from '../src/config/index.js';
import { shapeOf, type RecordedExchange } from '../test/openapi/replay.js';

const TOOLS = [
  {
    toolKey: 'github:create_issue',
    toolName: 'create_issue',
    serverName: 'GitHub',
    description: 'Open a new issue in a GitHub repository with a title, body, labels and assignees.',
  },
  {
    toolKey: 'github:list_issues',
    toolName: 'list_issues',
    serverName: 'GitHub',
    description: 'List issues of a GitHub repository, filtered by state, labels or assignee.',
  },
  {
    toolKey: 'slack:slack_post_message',
    toolName: 'slack_post_message',
    serverName: 'Slack',
    description: 'Send a new message to a Slack channel.',
  },
  {
    toolKey: 'filesystem:read_file',
    toolName: 'read_file',
    serverName: 'Filesystem',
    description: 'Read a whole file from the file system and return its text.',
  },
  {
    toolKey: 'google-calendar:create_event',
    toolName: 'create_event',
    serverName: 'Google Calendar',
    description: 'Create a calendar event with attendees.',
  },
];

const REQUESTS: Omit<RecordedExchange, 'response'>[] = [
  {
    name: 'search: open a GitHub issue',
    request: {
      method: 'POST',
      path: '/v1/catalog/search',
      headers: { 'content-type': 'application/json', 'x-request-id': 'v1-replay-search' },
      body: { query: ['open a new issue in the GitHub repository'], maxResults: 3, tools: TOOLS },
    },
  },
  {
    name: 'field error: empty query',
    request: {
      method: 'POST',
      path: '/v1/catalog/search',
      headers: { 'content-type': 'application/json', 'x-request-id': 'v1-replay-error' },
      body: { query: [], tools: TOOLS },
    },
  },
];

const config = parseConfig({
  AUTH_JWT_SECRET: 'v1-replay-recording-secret-0123456789abc',
  LOG_LEVEL: 'silent',
  RATE_LIMIT_PER_MINUTE: '0',
});
const app = buildApp(config);
await app.listen({ host: '127.0.0.1', port: 0 });
const { port } = app.server.address() as { port: number };
const token = app.jwt.sign({ projectId: 'v1-replay', sub: 'recorder' }, { expiresIn: '5m' });

const exchanges: RecordedExchange[] = [];
for (const exchange of REQUESTS) {
  const response = await fetch(`http://127.0.0.1:${port}${exchange.request.path}`, {
    method: exchange.request.method,
    headers: { ...exchange.request.headers, authorization: `Bearer ${token}` },
    body: JSON.stringify(exchange.request.body),
  });
  const body = (await response.json()) as { results?: { toolKey: string }[] };
  exchanges.push({
    ...exchange,
    response: {
      status: response.status,
      headers: {
        'content-type': response.headers.get('content-type')!,
        'api-version': response.headers.get('api-version')!,
      },
      shape: shapeOf(body),
      ...(body.results === undefined ? {} : { topToolKeys: body.results.slice(0, 2).map((result) => result.toolKey) }),
    },
  });
}
await app.close();

const target = fileURLToPath(new URL('../test/fixtures/v1/replay.json', import.meta.url));
await writeFile(target, `${JSON.stringify(exchanges, null, 2)}\n`);
process.stdout.write(`recorded ${exchanges.length} exchanges in ${target}\n`);
