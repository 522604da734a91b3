import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as client from '@catalog-search/client';
import { startApp, testConfig, type RunningApp } from '../helpers/app.js';
import { testToken } from '../helpers/tokens.js';

// The client README's snippets run as written, against the real service: each `ts` block is taken from
// the README, its imports bound to the package's exports (a name it uses without importing fails), and
// the names it assumes of the router (`server`, `router`, `catalog`, ...) given stand-ins.

const README = readFileSync(new URL('../../packages/client/README.md', import.meta.url), 'utf8');

/** The first ```ts block after `heading`. */
function snippetAfter(heading: string): string {
  const from = README.indexOf(heading);
  expect(from, heading).toBeGreaterThanOrEqual(0);
  const block = /```ts\n([\s\S]*?)```/.exec(README.slice(from));
  return block![1]!;
}

const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor as new (
  ...args: string[]
) => (...values: unknown[]) => Promise<unknown>;

/** Runs `code` as a module body with only its `@catalog-search/client` imports and `scope` in reach; returns what it returns. */
async function runSnippet(code: string, scope: Record<string, unknown>, returning = ''): Promise<any> {
  const imported: Record<string, unknown> = {};
  const body = code.replace(/^import \{([^}]*)\} from '@catalog-search\/client';$/gm, (_line, names: string) => {
    for (const name of names
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean)) {
      expect(client, `${name} is exported`).toHaveProperty(name);
      imported[name] = (client as Record<string, unknown>)[name];
    }
    return '';
  });
  const js = ts.transpileModule(body.replace(/^export /gm, '') + returning, {
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
  }).outputText;
  const names = { ...scope, ...imported };
  return new AsyncFunction(...Object.keys(names), js)(...Object.values(names));
}

const listed = {
  tools: [
    { name: 'read_file', description: 'Read the complete contents of a file', inputSchema: { type: 'object' } },
    { name: 'send_email', description: 'Send an email to a recipient', inputSchema: { type: 'object' } },
  ],
};

let service: RunningApp;
let catalog: client.CatalogSearchClient;
beforeAll(async () => {
  service = await startApp(testConfig());
  catalog = client.createCatalogSearchClient({ baseUrl: service.url, token: testToken({ projectId: 'readme' }) });
});
afterAll(() => service.close());

describe('packages/client/README.md, as written', () => {
  it('the integration, a whole program: saved as discovery.ts and run with tsx, it searches the service', async () => {
    const root = fileURLToPath(new URL('../..', import.meta.url));
    // Inside the checkout (its git-ignored tmp/), so that '@catalog-search/client' resolves as in a router's project.
    mkdirSync(join(root, 'tmp'), { recursive: true });
    const dir = mkdtempSync(join(root, 'tmp', 'readme-'));
    try {
      writeFileSync(join(dir, 'discovery.ts'), snippetAfter('## Integration into `tool_discovery`'));
      const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'discovery.ts'], {
        cwd: dir,
        env: {
          PATH: process.env.PATH ?? '',
          CATALOG_SEARCH_URL: service.url,
          CATALOG_SEARCH_TOKEN: testToken({ projectId: 'readme' }),
        },
      });
      expect(stderr).toBe(''); // no "tool search ran locally"
      expect(stdout).toMatch(/^\[\n {2}\{\n {4}toolKey: 'mail:send_email',/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the ready-made tool_discovery: tools/list lists both meta-tools, tools/call answers from the cloud', async () => {
    const handlers = new Map<unknown, () => unknown>();
    const ListToolsRequestSchema = Symbol('tools/list');
    const result = await runSnippet(snippetAfter('## The `tool_discovery` meta-tool, ready made'), {
      server: { setRequestHandler: (schema: unknown, handler: () => unknown) => handlers.set(schema, handler) },
      ListToolsRequestSchema,
      router: { connectedServers: () => [{ id: 'files', name: 'Files', toolsList: listed }] },
      catalog,
      request: { params: { arguments: { query: ['read a file'], maxResults: 1 } } },
      signal: undefined,
    });
    const listing = handlers.get(ListToolsRequestSchema)!() as { tools: Array<{ name: string }> };
    expect(listing.tools.map((tool) => tool.name)).toEqual(['tool_discovery', 'tool_execute']);
    expect(result._meta.source).toBe('cloud');
    expect(result.structuredContent.results[0].toolKey).toBe('files:read_file');
  });

  it('search → execute → report: the outcome is delivered to the service', async () => {
    const warned: unknown[] = [];
    const dropped: unknown[] = [];
    const reporting = client.createCatalogSearchClient({
      baseUrl: service.url,
      token: testToken({ projectId: 'readme' }),
      reports: { onDropped: (event) => dropped.push(event) },
    });
    const { toolDiscovery, toolExecute } = await runSnippet(
      snippetAfter('## Learning from use'),
      {
        catalog: reporting,
        currentServers: () => client.toServers([{ serverId: 'files', listed }]),
        router: { callTool: async () => ({ content: [{ type: 'text', text: 'done' }] }) },
        log: { warn: (...args: unknown[]) => warned.push(args) },
      },
      '\nreturn { toolDiscovery, toolExecute };',
    );
    const results = await toolDiscovery({ query: ['send an email'] });
    expect(results[0].toolKey).toBe('files:send_email');
    expect(await toolExecute({ toolKey: 'files:send_email', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'done' }],
    });
    expect(reporting.pendingReports()).toBe(1);
    await reporting.flushReports({ timeoutMs: 5000 });
    expect(reporting.pendingReports()).toBe(0);
    expect(dropped).toEqual([]);
    expect(warned).toEqual([]);
  });
});
