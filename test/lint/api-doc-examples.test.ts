// docs/api.md's shell examples run as written, in order, in one shell against the real service in
// development mode (as `npm start` runs it): `set -u` fails on a variable used before it is defined,
// and each step's answer is checked. Only URL comes from the test (the service's free port).
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServiceProcess, stopAllServiceProcesses, type ServiceProcess } from '../helpers/service-process.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const shellEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };

const blocks = [
  ...readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8').matchAll(/^```sh\n([\s\S]*?)^```$/gm),
].map((match) => match[1]!);

let service: ServiceProcess;
beforeAll(async () => {
  service = await startServiceProcess({ ...shellEnv, NODE_ENV: 'development' });
  // The development key is written before the server listens: mint-token can sign with it now.
}, 60_000);
afterAll(() => stopAllServiceProcesses());

describe('docs/api.md, as written', () => {
  it('the tool-set reference and the learning loop run in one shell, each variable defined before use', async () => {
    expect(blocks.length).toBe(2);
    // Each answer on its own line (curl prints none after a JSON body); inside $(...) the newline is dropped.
    const script = ['set -eu', 'curl() { command curl "$@"; echo; }', ...blocks].join('\n');
    const { stdout } = await run('sh', ['-c', script], { cwd: root, env: { ...shellEnv, URL: service.url } });
    const lines = stdout.split('\n').filter(Boolean);
    // 1. the search by reference: the bundled list's Slack tool first
    expect(JSON.parse(lines[0]!).results[0].toolKey).toBe('slack:post_message');
    // 2. the report of the search whose id was kept, accepted
    expect(JSON.parse(lines[1]!)).toEqual({ accepted: 1, ignored: [] });
    // 3. DELETE answers 204 with no body
    expect(lines.length).toBe(2);
  }, 60_000);
});
