// scripts/mint-token.mjs mints tokens the running service accepts, for a secret and for a private key.
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startApp, TEST_SECRET, testConfig } from '../helpers/app.js';
import { sampleRequest } from '../fixtures/tools.js';
import { searchAs } from '../helpers/search.js';

const script = fileURLToPath(new URL('../../scripts/mint-token.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'mint-token-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const mint = (args: string[], env: Record<string, string> = {}) =>
  execFileSync(process.execPath, [script, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
  }).trim();

async function searchStatus(url: string, token: string): Promise<number> {
  return (await searchAs(url, sampleRequest, { token })).status;
}

describe('scripts/mint-token.mjs', () => {
  it('mints an HS256 token from AUTH_JWT_SECRET that the service accepts for that project', async () => {
    const server = await startApp(testConfig());
    try {
      const token = mint(['--project', 'smoke', '--issuer', 'https://router.example', '--audience', 'catalog-search'], {
        AUTH_JWT_SECRET: TEST_SECRET,
      });
      expect(await searchStatus(server.url, token)).toBe(200);
      expect(JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString())).toMatchObject({
        projectId: 'smoke',
      });
      const wrong = mint(['--project', 'smoke'], { AUTH_JWT_SECRET: 'another-secret-that-is-at-least-32-bytes' });
      expect(await searchStatus(server.url, wrong)).toBe(401);
    } finally {
      await server.close();
    }
  });

  it('mints an ES256 token from a private key for a deployment that trusts its public key', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const keyFile = join(dir, 'key.pem');
    writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const server = await startApp(
      testConfig({ auth: { key: { kind: 'public-key', pem, algorithms: ['ES256'] }, issuers: [], audiences: [] } }),
    );
    try {
      expect(await searchStatus(server.url, mint(['--project', 'smoke', '--private-key', keyFile]))).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('lives 24 h by default as the development token, or --ttl; --claim key=value adds claims, JSON values parsed', async () => {
    const payload = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
    const env = { AUTH_JWT_SECRET: TEST_SECRET };
    const daily = payload(mint(['--project', 'p'], env));
    expect(daily.exp - daily.iat).toBe(24 * 3600);
    const short = payload(mint(['--project', 'p', '--ttl', '30m'], env));
    expect(short.exp - short.iat).toBe(1800);
    expect(payload(mint(['--project', 'p', '--ttl', '90'], env)).exp - daily.iat).toBeLessThan(100);

    const token = mint(
      [
        '--project',
        'p',
        '--claim',
        'shareLearning=false',
        '--claim',
        'team=blue',
        '--claim',
        'projectId=other',
        '--issuer',
        'https://router.example',
        '--audience',
        'catalog-search',
      ],
      env,
    );
    // The boolean false, not the string "false"; --project wins over a --claim of the project claim.
    expect(payload(token)).toMatchObject({ shareLearning: false, team: 'blue', projectId: 'p' });
    const server = await startApp(testConfig());
    try {
      expect(await searchStatus(server.url, token)).toBe(200);
    } finally {
      await server.close();
    }
    expect(() => mint(['--project', 'p', '--ttl', '5x'], env)).toThrow(/--ttl 5x/);
    expect(() => mint(['--project', 'p', '--claim', 'projectId'], env)).toThrow(/key=value/);
  });

  it('refuses to run without a project or a key', () => {
    // In production the development server's key file (which any earlier `npm start` or test may have
    // left at the repository root) is never used: no secret and no key is refused, whatever is on disk.
    expect(() => mint(['--project', 'p'], { NODE_ENV: 'production' })).toThrow(/AUTH_JWT_SECRET/);
    expect(() => mint([], { AUTH_JWT_SECRET: TEST_SECRET })).toThrow(/--project/);
  });
});
