import { execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCatalogSearchClient, type FetchLike, type SearchEvent } from '@catalog-search/client';
import { DEMO_SERVERS } from '../../examples/router/demo-servers.js';
import { createRouter } from '../../examples/router/router.js';
import { startApp, testConfig, type RunningApp } from '../helpers/app.js';
import { startServiceProcess, stopAllServiceProcesses } from '../helpers/service-process.js';
import { testToken } from '../helpers/tokens.js';

// examples/router as an MCP client drives it: tools/list, then tool_discovery, then tool_execute on
// what it found, against the real service; then the same with the service stopped (local ranking).

let service: RunningApp;
beforeAll(async () => {
  service = await startApp(testConfig());
});
afterAll(async () => {
  await service.close().catch(() => undefined);
  await stopAllServiceProcesses();
});

describe('examples/router', () => {
  it('lists the two meta-tools, finds a tool through the service, and executes it on its server', async () => {
    const events: SearchEvent[] = [];
    const token = testToken();
    // The feedback requests and the service's answers to them.
    const reports: Array<{ events: unknown; status: number }> = [];
    const observed: FetchLike = async (url, init) => {
      const response = await fetch(url, init);
      if (url.endsWith('/feedback'))
        reports.push({ events: JSON.parse(String(init.body)).events, status: response.status });
      return response;
    };
    const catalog = createCatalogSearchClient({
      baseUrl: service.url,
      token,
      fetch: observed,
      onSearch: (event) => events.push(event),
    });
    const router = createRouter(catalog, DEMO_SERVERS);
    let id = 0;
    const rpc = async (method: string, params?: Record<string, unknown>) =>
      (
        (await router.handle({ jsonrpc: '2.0', id: (id += 1), method, ...(params ? { params } : {}) })) as {
          result: any;
        }
      ).result;

    expect((await rpc('initialize')).capabilities).toEqual({ tools: {} });
    expect((await rpc('tools/list')).tools.map((tool: { name: string }) => tool.name)).toEqual([
      'tool_discovery',
      'tool_execute',
    ]);

    const found = await rpc('tools/call', {
      name: 'tool_discovery',
      arguments: { query: ['invite the team to a meeting on Tuesday'], maxResults: 3 },
    });
    expect(found._meta.source).toBe('cloud');
    const best = found.structuredContent.results[0];
    expect(best.toolKey).toBe('calendar:create_event');
    expect(best.arguments).toBe('title: string, start: string, attendees?: string[]');

    const executed = await rpc('tools/call', {
      name: 'tool_execute',
      arguments: { toolKey: best.toolKey, arguments: { title: 'Review', start: '2026-12-01T10:00:00Z' } },
    });
    expect(executed.content[0].text).toBe(
      'Calendar.create_event called with {"title":"Review","start":"2026-12-01T10:00:00Z"}',
    );
    expect((await rpc('tools/call', { name: 'tool_execute', arguments: { toolKey: 'nowhere:tool' } })).isError).toBe(
      true,
    );
    // The execution is reported as the outcome of the search that offered the tool.
    await catalog.flushReports();
    expect(reports).toEqual([
      {
        events: [{ requestId: found._meta.requestId, toolKey: 'calendar:create_event', outcome: 'succeeded' }],
        status: 202,
      },
    ]);
    expect(catalog.pendingReports()).toBe(0);

    await service.close();
    const offline = await rpc('tools/call', {
      name: 'tool_discovery',
      arguments: { query: ['invite the team to a meeting on Tuesday'], maxResults: 3 },
    });
    expect(offline._meta).toMatchObject({ source: 'local', fallbackReason: 'network' });
    expect(offline.structuredContent.results[0].toolKey).toBe('calendar:create_event');
    expect(events.map((event) => event.source)).toEqual(['cloud', 'local']);
  });
});

// As the README and the router's header say, on a clone: `npm start` (development mode: no key
// configured), `npm run mint-token`, the router as a program on stdio; then the service restarted.
const root = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);
/** The environment of a fresh shell: no key of the tests' (the development server and mint-token find theirs). */
const shellEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };

/** Runs examples/router/router.ts as its header says, sends `requests` on stdin, and returns what it answered. */
async function runRouter(url: string, token: string, requests: Array<object | string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/router/router.ts'], {
    cwd: root,
    env: { ...shellEnv, CATALOG_SEARCH_URL: url, CATALOG_SEARCH_TOKEN: token },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  // A string is sent as it is (a malformed line); an object as its JSON.
  child.stdin.end(
    requests.map((request) => (typeof request === 'string' ? request : JSON.stringify(request))).join('\n') + '\n',
  );
  const code = await exited;
  const answers = stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { id: number | null; result: any; error?: { code: number; message: string } });
  return { code, answers, stderr };
}

const printedToken = (tokenLine: string) => tokenLine.slice('TOKEN='.length);

const FIND_AND_RUN = [
  { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', id: 2, method: 'tools/list' },
  {
    jsonrpc: '2.0',
    id: 3,
    method: 'tools/call',
    params: { name: 'tool_discovery', arguments: { query: ['send an email to the team'], maxResults: 2 } },
  },
  {
    jsonrpc: '2.0',
    id: 4,
    method: 'tools/call',
    params: {
      name: 'tool_execute',
      arguments: { toolKey: 'mail:send_email', arguments: { to: ['team'], subject: 'Hi' } },
    },
  },
];

describe('the README quick start and examples/router, run as written', () => {
  it('npm start, its printed curl, npm run mint-token and the router; tokens survive a restart', async () => {
    const first = await startServiceProcess({ ...shellEnv, NODE_ENV: 'development' });
    // The quick start: the TOKEN line and the curl command the server printed, pasted into a shell.
    await expect.poll(() => first.output(), { timeout: 10_000 }).toContain('curl -s');
    const printed = first.output().split('\n');
    const tokenLine = printed.find((line) => line.startsWith('TOKEN='))!;
    const curlLine = printed.find((line) => line.startsWith('curl -s'))!;
    const { stdout: answer } = await run('sh', ['-c', `${tokenLine}\n${curlLine}`], { cwd: root, env: shellEnv });
    // The README's answer: Slack's post_message first, then Google Calendar's create_event.
    expect(
      (JSON.parse(answer) as { results: Array<{ toolKey: string }> }).results.slice(0, 2).map((r) => r.toolKey),
    ).toEqual(['slack:post_message', 'gcal:create_event']);

    const { stdout: minted } = await run('npm', ['run', '-s', 'mint-token', '--', '--project', 'demo'], {
      cwd: root,
      env: shellEnv,
    });
    const token = minted.trim();
    const ran = await runRouter(first.url, token, FIND_AND_RUN);
    expect(ran.code).toBe(0);
    expect(ran.answers.find((a) => a.id === 2)!.result.tools.map((tool: { name: string }) => tool.name)).toEqual([
      'tool_discovery',
      'tool_execute',
    ]);
    const found = ran.answers.find((a) => a.id === 3)!.result;
    expect(found._meta.source).toBe('cloud');
    expect(found.structuredContent.results[0].toolKey).toBe('mail:send_email');
    expect(ran.answers.find((a) => a.id === 4)!.result.content[0].text).toMatch(/^Mail\.send_email called with/);
    expect(ran.stderr).toMatch(/tool search \S+: cloud in \d+ ms\n/);
    expect(ran.stderr).not.toContain('not sent');

    // A restarted development server keeps its key: the printed token and the minted one still work.
    await first.stop();
    const second = await startServiceProcess({ ...shellEnv, NODE_ENV: 'development' });
    for (const kept of [token, tokenLine.slice('TOKEN='.length)]) {
      const again = await runRouter(second.url, kept, FIND_AND_RUN.slice(0, 4));
      expect(again.answers.find((a) => a.id === 3)!.result._meta.source).toBe('cloud');
    }

    // A malformed line (not JSON, not a request) is skipped with a message and a JSON-RPC error; the session goes on.
    const bad = await runRouter(second.url, printedToken(tokenLine), [
      '{"jsonrpc": "2.0", "id": 1, "method": ',
      '[1, 2]',
      '{"jsonrpc": "2.0", "id": 2}',
      ...FIND_AND_RUN.slice(0, 4),
    ]);
    expect(bad.code).toBe(0);
    expect(bad.answers.filter((a) => a.id === null).map((a) => a.error?.code)).toEqual([-32700, -32600, -32600]);
    expect(bad.answers.find((a) => a.id === 3)!.result._meta.source).toBe('cloud');
    expect(bad.stderr).toContain('skipped an input line: not JSON ({"jsonrpc": "2.0", "id": 1, "method": )');
    expect(bad.stderr).toContain('skipped an input line: a JSON-RPC request without a method');

    // A token the cloud refuses is said loudly, not answered locally in silence.
    const refused = await runRouter(second.url, testToken(), FIND_AND_RUN.slice(0, 4));
    expect(refused.answers.find((a) => a.id === 3)!.result._meta).toMatchObject({
      source: 'local',
      fallbackReason: 'unauthorized',
    });
    expect(refused.stderr).toContain('THE CLOUD REFUSED THIS ROUTER (unauthorized)');
    await second.stop();
  }, 240_000);
});
