import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, testConfig, type RunningApp } from '../helpers/app.js';
import { testToken } from '../helpers/tokens.js';

// What a router's developer does: `npm pack` the client, install the one tarball in a fresh project
// outside this repository (its dependencies from the public registry), and run a ten-line program
// against the running service; then stop the service and see the same program answer locally.

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

const PROGRAM = `import { createCatalogSearchClient, toServers } from '@catalog-search/client';
const client = createCatalogSearchClient({ baseUrl: process.env.BASE_URL, token: process.env.TOKEN, timeoutMs: 2000 });
const listed = { tools: [
  { name: 'read_file', description: 'Read the complete contents of a file', inputSchema: { type: 'object' } },
  { name: 'send_email', description: 'Send an email to a recipient', inputSchema: { type: 'object' } },
  { name: '', description: 'a tool with no name' },
] };
const servers = toServers([{ serverId: 'files', serverName: 'Files', listed }]);
const outcome = await client.search({ query: ['read a file'], servers, maxResults: 3 });
console.log(JSON.stringify(outcome));
`;

// A router's tool_discovery as the README shows it: the tool definition from the package, and a
// tools/call answered with handleToolDiscovery over the tools/list results of its servers.
const ROUTER = `import { createCatalogSearchClient, handleToolDiscovery, TOOL_DISCOVERY_TOOL, toServers } from '@catalog-search/client';
const searches = [];
const client = createCatalogSearchClient({ baseUrl: process.env.BASE_URL, token: process.env.TOKEN, timeoutMs: 2000, onSearch: (event) => searches.push(event) });
const servers = toServers([
  { serverId: 'files', serverName: 'Files', listed: { tools: [
    { name: 'read_file', title: 'Read file', description: 'Read the complete contents of a file from disk. Handles text encodings.', inputSchema: { type: 'object', properties: { path: { type: 'string' }, encoding: { type: 'string' } }, required: ['path'] }, outputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
    { name: 'write_file', description: 'Write text to a file', inputSchema: { type: 'object', properties: { path: { type: 'string' }, text: { type: 'string' } } } },
  ] } },
  { serverId: 'mail', listed: { tools: [{ name: 'send_email', description: 'Send an email to a recipient', inputSchema: { type: 'object' } }] } },
]);
const calls = {};
for (const detail of ['minimal', 'summary', 'full']) {
  calls[detail] = await handleToolDiscovery(client, { query: ['read a file'], maxResults: 2, detail }, servers);
}
calls.invalid = await handleToolDiscovery(client, { query: [] }, servers);
console.log(JSON.stringify({ tool: TOOL_DISCOVERY_TOOL, calls, searches }));
`;

let scratch: string;
let service: RunningApp | undefined;
/** `npm pack --json`'s list of the tarball's files, and the tarball's size. */
let packed: { files: Array<{ path: string }>; size: number };

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'catalog-search-client-'));
  const { stdout } = await run(
    npm,
    ['pack', '--json', '--workspace', 'packages/client', '--pack-destination', scratch],
    {
      cwd: root,
    },
  );
  // prepack's build may print before the JSON (tsc): the array is the last thing written.
  packed = (JSON.parse(stdout.slice(stdout.lastIndexOf('\n[') + 1)) as (typeof packed)[])[0]!;
  const tarball = (await readdir(scratch)).find((name) => name.endsWith('.tgz'))!;
  await writeFile(join(scratch, 'package.json'), JSON.stringify({ name: 'router', private: true, type: 'module' }));
  await run(npm, ['install', '--no-audit', '--no-fund', '--ignore-scripts', join(scratch, tarball)], { cwd: scratch });
  await writeFile(join(scratch, 'search.mjs'), PROGRAM);
  await writeFile(join(scratch, 'router.mjs'), ROUTER);
  service = await startApp(testConfig());
}, 180_000);

afterAll(async () => {
  await service?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

async function runProgram(baseUrl: string, program = 'search.mjs'): Promise<Record<string, any>> {
  const token = testToken();
  const { stdout } = await run(process.execPath, [program], {
    cwd: scratch,
    env: { ...process.env, BASE_URL: baseUrl, TOKEN: token },
  });
  return JSON.parse(stdout) as Record<string, any>;
}

describe('the client tarball in a fresh project', () => {
  it('holds only what a router needs: the bundle and its chunks, each language with its dictionary licence, declarations, README, CHANGELOG, licence, notice', () => {
    const paths = packed.files.map((file) => file.path).sort();
    const extra = paths
      .filter((path) => !(path.startsWith('dist/types/') && path.endsWith('.d.ts')))
      .map((path) => path.replace(/-[A-Z0-9]{8}\.js$/, '-HASH.js'));
    expect(extra).toEqual([
      'CHANGELOG.md',
      'LICENSE',
      'NOTICE',
      'README.md',
      'dist/chunks/chunk-HASH.js',
      'dist/chunks/chunk-HASH.js',
      'dist/chunks/chunk-HASH.js',
      'dist/chunks/chunk-HASH.js',
      'dist/chunks/chunk-HASH.js',
      'dist/chunks/chunk-HASH.js',
      'dist/chunks/de-HASH.js',
      'dist/chunks/es-HASH.js',
      'dist/chunks/fr-HASH.js',
      'dist/chunks/it-HASH.js',
      'dist/chunks/ja-HASH.js',
      'dist/chunks/ko-HASH.js',
      'dist/chunks/pt-HASH.js',
      'dist/chunks/ru-HASH.js',
      'dist/chunks/zh-HASH.js',
      'dist/index.d.ts',
      'dist/index.js',
      'dist/languages/de.d.ts',
      'dist/languages/de.js',
      'dist/languages/es.d.ts',
      'dist/languages/es.js',
      'dist/languages/fr.d.ts',
      'dist/languages/fr.js',
      'dist/languages/it.d.ts',
      'dist/languages/it.js',
      'dist/languages/ja-en-dictionary.LICENSE.md',
      'dist/languages/ja.d.ts',
      'dist/languages/ja.js',
      'dist/languages/ko.d.ts',
      'dist/languages/ko.js',
      'dist/languages/pt.d.ts',
      'dist/languages/pt.js',
      'dist/languages/ru.d.ts',
      'dist/languages/ru.js',
      'dist/languages/zh-en-dictionary.LICENSE.md',
      'dist/languages/zh.d.ts',
      'dist/languages/zh.js',
      'package.json',
    ]);
    // The declarations of the client and of the core it bundles, nothing else.
    expect(
      paths
        .filter((path) => path.startsWith('dist/types/'))
        .every((path) => /^dist\/types\/(client|core)\/src\//.test(path)),
    ).toBe(true);
    // Measured: 99 files, 1.79 MB packed (most of it the Japanese and Chinese dictionary chunks): a bound, not a figure.
    expect(packed.size).toBeLessThan(2_000_000);
  });

  it('is publishable: Apache-2.0, public, with types and an engines field', async () => {
    const manifest = JSON.parse(await readFile(join(root, 'packages/client/package.json'), 'utf8'));
    expect(manifest).toMatchObject({
      license: 'Apache-2.0',
      publishConfig: { access: 'public' },
      types: './dist/index.d.ts',
      engines: { node: expect.any(String) },
    });
    expect(manifest.private).toBeUndefined();
    const installed = join(scratch, 'node_modules/@catalog-search/client');
    expect((await readFile(join(installed, 'LICENSE'), 'utf8')).trim().split('\n')[0]?.trim()).toBe('Apache License');
    expect(await readFile(join(installed, 'NOTICE'), 'utf8')).toContain('CC BY-SA 3.0');
    expect(await readFile(join(installed, 'dist/languages/ja-en-dictionary.LICENSE.md'), 'utf8')).toContain(
      'JMdict/EDICT',
    );
    expect(await readFile(join(installed, 'NOTICE'), 'utf8')).toContain('CC-CEDICT');
    expect(await readFile(join(installed, 'dist/languages/zh-en-dictionary.LICENSE.md'), 'utf8')).toContain(
      'CC-CEDICT',
    );
  });

  it('ships one bundle with its declarations: no source maps, no build info, no workspace package', async () => {
    const installed = join(scratch, 'node_modules/@catalog-search');
    expect(await readdir(installed)).toEqual(['client']);
    const files = await readdir(join(installed, 'client/dist'), { recursive: true });
    expect(files.filter((name) => name.endsWith('.map') || name.includes('tsbuildinfo'))).toEqual([]);
    expect(files).toContain('index.js');
    expect(files).toContain('index.d.ts');
  });

  it('loads no module of TypeBox: it is bundled in (its 266 modules were most of the import time)', async () => {
    // A resolve hook that refuses TypeBox: importing the client and a local answer (the service is not
    // asked) must not need it.
    const refuse = `export async function resolve(specifier, context, next) {
      if (specifier.startsWith('@sinclair/typebox')) throw new Error('loaded ' + specifier);
      return next(specifier, context);
    }`;
    const program = `import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(refuse)}));
const { createCatalogSearchClient } = await import('@catalog-search/client');
const client = createCatalogSearchClient({ baseUrl: 'http://127.0.0.1:9', token: 't' });
const tools = [{ toolKey: 'files:read_file', toolName: 'read_file', serverName: 'Files', description: 'Read a file' }];
const outcome = await client.search({ query: ['read a file'], tools });
console.log(JSON.stringify({ source: outcome.source, first: outcome.results[0]?.toolKey }));
`;
    await writeFile(join(scratch, 'no-typebox.mjs'), program);
    const { stdout } = await run(process.execPath, ['no-typebox.mjs'], { cwd: scratch });
    expect(JSON.parse(stdout)).toEqual({ source: 'local', first: 'files:read_file' });
  });

  it('Japanese in the fallback is one import; without it a Japanese request ranks without the dictionary, whose chunk is never read', async () => {
    const program = (
      withJapanese: boolean,
    ) => `${withJapanese ? "import '@catalog-search/client/languages/ja';\n" : ''}import { readFileSync } from 'node:fs';
import { createCatalogSearchClient, loadedLanguages } from '@catalog-search/client';
const { tools } = JSON.parse(readFileSync(${JSON.stringify(join(root, 'examples/search-request.json'))}, 'utf8'));
const client = createCatalogSearchClient({ baseUrl: 'http://127.0.0.1:9', token: 't', breaker: false });
const outcome = await client.search({ query: ['カレンダーに明日の会議を追加して'], tools });
console.log(JSON.stringify({ source: outcome.source, first: outcome.results[0]?.toolKey ?? null, languages: loadedLanguages() }));
`;
    await writeFile(join(scratch, 'japanese-off.mjs'), program(false));
    await writeFile(join(scratch, 'japanese-on.mjs'), program(true));
    // Without the import, the client runs with the dictionary's chunk gone from the installed package.
    const chunks = join(scratch, 'node_modules/@catalog-search/client/dist/chunks');
    const dictionary = (await readdir(chunks)).find((name) => name.startsWith('ja-'))!;
    await rename(join(chunks, dictionary), join(scratch, dictionary));
    let off: Record<string, unknown>;
    try {
      off = JSON.parse((await run(process.execPath, ['japanese-off.mjs'], { cwd: scratch })).stdout);
    } finally {
      await rename(join(scratch, dictionary), join(chunks, dictionary));
    }
    const on = JSON.parse((await run(process.execPath, ['japanese-on.mjs'], { cwd: scratch })).stdout);
    // The English sample list shares no word with the request: no answer without the dictionary (as before it).
    expect(off).toEqual({ source: 'local', first: null, languages: [] });
    expect(on).toEqual({ source: 'local', first: 'gcal:create_event', languages: ['ja'] });
  });

  it('Chinese in the fallback is one import too, and loads only its own chunk', async () => {
    const program = `import '@catalog-search/client/languages/zh';
import { readFileSync } from 'node:fs';
import { createCatalogSearchClient, loadedLanguages } from '@catalog-search/client';
const { tools } = JSON.parse(readFileSync(${JSON.stringify(join(root, 'examples/search-request.json'))}, 'utf8'));
const client = createCatalogSearchClient({ baseUrl: 'http://127.0.0.1:9', token: 't', breaker: false });
const outcome = await client.search({ query: ['在日历中添加明天的会议'], tools });
console.log(JSON.stringify({ source: outcome.source, first: outcome.results[0]?.toolKey ?? null, languages: loadedLanguages() }));
`;
    await writeFile(join(scratch, 'chinese-on.mjs'), program);
    // The Japanese dictionary's chunk is gone: importing Chinese must not need it.
    const chunks = join(scratch, 'node_modules/@catalog-search/client/dist/chunks');
    const japanese = (await readdir(chunks)).find((name) => name.startsWith('ja-'))!;
    await rename(join(chunks, japanese), join(scratch, japanese));
    let on: Record<string, unknown>;
    try {
      on = JSON.parse((await run(process.execPath, ['chinese-on.mjs'], { cwd: scratch })).stdout);
    } finally {
      await rename(join(scratch, japanese), join(chunks, japanese));
    }
    expect(on).toEqual({ source: 'local', first: 'gcal:create_event', languages: ['zh'] });
  });

  it('answers a tool_discovery call against the running service, sized by detail, with onSearch seeing each search', async () => {
    const { tool, calls, searches } = await runProgram(service!.url, 'router.mjs');
    expect(tool).toMatchObject({ name: 'tool_discovery', inputSchema: { required: ['query'] } });
    expect(Object.keys(tool.inputSchema.properties)).toEqual(['query', 'context', 'maxResults', 'detail']);
    expect(searches.map((event: { source: string }) => event.source)).toEqual(['cloud', 'cloud', 'cloud']);

    const { minimal, summary, full, invalid } = calls;
    for (const call of [minimal, summary, full]) {
      expect(call.isError).toBeUndefined();
      expect(call._meta.source).toBe('cloud');
      expect(call.structuredContent.results.map((result: { toolKey: string }) => result.toolKey)[0]).toBe(
        'files:read_file',
      );
    }
    expect(minimal.structuredContent.results[0]).toEqual({ toolKey: 'files:read_file', relevance: expect.any(Number) });
    expect(summary.structuredContent.results[0]).toMatchObject({
      title: 'Read file',
      arguments: 'path: string, encoding?: string',
    });
    expect(summary.structuredContent.results[0].inputSchema).toBeUndefined();
    expect(full.structuredContent.results[0]).toMatchObject({
      description: 'Read the complete contents of a file from disk. Handles text encodings.',
      inputSchema: { required: ['path'] },
      outputSchema: { properties: { text: { type: 'string' } } },
    });
    const sizes = [minimal, summary, full].map((call) => call.content[0].text.length);
    expect(sizes[0]).toBeLessThan(sizes[1]);
    expect(sizes[1]).toBeLessThan(sizes[2]);
    expect(invalid).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: expect.stringContaining('/query') }],
    });
  });

  it('searches the running service, then falls back locally when it is stopped', async () => {
    const url = service!.url;
    const cloud = await runProgram(url);
    expect(cloud.source).toBe('cloud');
    expect(cloud.results[0].toolKey).toBe('files:read_file');
    expect(cloud.meta.skipped).toEqual([{ index: 2, reason: '/servers/0/tools/2/name: must be a non-empty string' }]);

    await service!.close();
    service = undefined;
    const local = await runProgram(url);
    expect(local.source).toBe('local');
    expect(local.fallbackReason).toBe('network');
    expect(local.results.map((result: { toolKey: string }) => result.toolKey)).toEqual(
      cloud.results.map((result: { toolKey: string }) => result.toolKey),
    );
    expect(local.meta.skipped).toEqual(cloud.meta.skipped);
  });
});
