import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, TEST_SECRET, testConfig, type RunningApp } from '../helpers/app.js';
import { claims, signJwt } from '../helpers/tokens.js';

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

let scratch: string;
let service: RunningApp | undefined;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'catalog-search-client-'));
  await run(npm, ['pack', '--workspace', 'packages/client', '--pack-destination', scratch], { cwd: root });
  const tarball = (await readdir(scratch)).find((name) => name.endsWith('.tgz'))!;
  await writeFile(join(scratch, 'package.json'), JSON.stringify({ name: 'router', private: true, type: 'module' }));
  await run(npm, ['install', '--no-audit', '--no-fund', '--ignore-scripts', join(scratch, tarball)], { cwd: scratch });
  await writeFile(join(scratch, 'search.mjs'), PROGRAM);
  service = await startApp(testConfig());
}, 180_000);

afterAll(async () => {
  await service?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

async function runProgram(baseUrl: string): Promise<Record<string, any>> {
  const token = signJwt(claims({ iss: 'https://router.example', aud: 'catalog-search' }), { alg: 'HS256', key: TEST_SECRET });
  const { stdout } = await run(process.execPath, ['search.mjs'], { cwd: scratch, env: { ...process.env, BASE_URL: baseUrl, TOKEN: token } });
  return JSON.parse(stdout) as Record<string, any>;
}

describe('the client tarball in a fresh project', () => {
  it('ships one bundle with its declarations: no source maps, no build info, no workspace package', async () => {
    const installed = join(scratch, 'node_modules/@catalog-search');
    expect(await readdir(installed)).toEqual(['client']);
    const files = await readdir(join(installed, 'client/dist'), { recursive: true });
    expect(files.filter((name) => name.endsWith('.map') || name.includes('tsbuildinfo'))).toEqual([]);
    expect(files).toContain('index.js');
    expect(files).toContain('index.d.ts');
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
    expect(local.results.map((result: { toolKey: string }) => result.toolKey)).toEqual(cloud.results.map((result: { toolKey: string }) => result.toolKey));
    expect(local.meta.skipped).toEqual(cloud.meta.skipped);
  });
});
