import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { connect } from 'node:net';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startServiceProcess, stopAllServiceProcesses } from './helpers/service-process.js';
import { testToken } from './helpers/tokens.js';

/**
 * The real entry point as `npm start` runs it (node dist/src/server.js) in a child process:
 * development start, refusal in production without a key, and graceful shutdown on SIGTERM with a
 * request in flight.
 */
const root = fileURLToPath(new URL('..', import.meta.url));
const serverJs = `${root}dist/src/server.js`;

// `npm ci` builds dist (prepare); rebuild here only when a source file is newer than the build.
beforeAll(() => {
  const builtAt = (() => {
    try {
      return statSync(serverJs).mtimeMs;
    } catch {
      return 0;
    }
  })();
  const sources = readdirSync(`${root}src`, { recursive: true, encoding: 'utf8' }).filter((path) =>
    path.endsWith('.ts'),
  );
  if (sources.some((path) => statSync(`${root}src/${path}`).mtimeMs > builtAt)) {
    const build = spawnSync(process.execPath, [`${root}node_modules/typescript/bin/tsc`, '-b'], {
      cwd: root,
      stdio: 'inherit',
    });
    if (build.status !== 0) throw new Error('tsc -b failed');
  }
}, 120_000);
const SECRET = 'server-test-secret-of-at-least-32-bytes';
const children: ChildProcess[] = [];

interface Started {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exitCode: () => number | null;
  exited: Promise<number | null>;
}

function startServer(env: Record<string, string>): Started {
  const child = spawn(process.execPath, [serverJs], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout: () => stdout, stderr: () => stderr, exitCode: () => child.exitCode, exited };
}

async function waitFor<T>(probe: () => T | undefined, what: string, ms = 15_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const listeningPort = (started: Started) =>
  waitFor(() => {
    const match = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(started.stdout());
    return match ? Number(match[1]) : undefined;
  }, 'the server to listen');

afterEach(async () => {
  await stopAllServiceProcesses();
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

describe('npm start (src/server.ts)', () => {
  it('in development without a key: prints a token and a curl command that gets a ranked answer', async () => {
    const started = startServer({ NODE_ENV: 'development' });
    const banner = await waitFor(
      () => (/^curl .*$/m.test(started.stdout()) ? started.stdout() : undefined),
      'the curl line',
    );
    const token = /^TOKEN=(\S+)$/m.exec(banner)![1]!;
    const curl = /^curl -s (\S+) .*--data @(\S+)$/m.exec(banner)!;
    const [, url, file] = curl;
    expect(file).toBe(`${root}examples/search-request.json`);
    // Run what the curl line says, with fetch.
    const response = await fetch(url!, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: readFileSync(file!),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      results: { toolKey: string }[];
      meta: { ranker: string; semantic?: string };
    };
    expect(body.results.length).toBeGreaterThan(0);
    expect(body.meta.ranker).toBe('bm25');
    // The embedded encoder is opt-in (EMBEDDINGS=on): by default the answer is the word ranking, and the
    // startup log says how to turn meaning on.
    expect(body.meta.semantic).toBe('off');
    expect(started.stdout()).toMatch(/semantic stage off: .*EMBEDDINGS=on turns it on/);
    // The token really is for 24 h.
    const payload = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as {
      exp: number;
      iat: number;
    };
    expect(payload.exp - payload.iat).toBe(24 * 3600);
    started.child.kill('SIGTERM');
    expect(await started.exited).toBe(0);
  });

  it('in production without a key: refuses to start and names the variables', async () => {
    const started = startServer({ NODE_ENV: 'production' });
    expect(await started.exited).toBe(1);
    for (const name of ['AUTH_JWT_SECRET', 'AUTH_JWT_PUBLIC_KEY', 'AUTH_JWKS_URL'])
      expect(started.stderr()).toContain(name);
    expect(started.stdout()).not.toContain('TOKEN=');
  });

  it("with the Secret template's placeholder as the key: refuses to start and names AUTH_JWT_SECRET", async () => {
    const template = readFileSync(`${root}deploy/base/secret.template.yaml`, 'utf8');
    const placeholder = /^\s*AUTH_JWT_SECRET: (\S+)$/m.exec(template)![1]!;
    const started = startServer({ NODE_ENV: 'production', AUTH_JWT_SECRET: placeholder });
    expect(await started.exited).toBe(1);
    expect(started.stderr()).toMatch(/AUTH_JWT_SECRET: is a placeholder/);
    expect(started.stderr()).not.toContain(placeholder);
  });

  it('with bad variables: names each of them and exits 1', async () => {
    const started = startServer({ NODE_ENV: 'production', AUTH_JWT_SECRET: SECRET, PORT: 'x', MAX_TOOLS: '-3' });
    expect(await started.exited).toBe(1);
    expect(started.stderr()).toMatch(/PORT: .*\n.*MAX_TOOLS: /);
  });

  it('on SIGTERM: /readyz turns 503, the in-flight search completes, then the process exits 0', async () => {
    const started = startServer({ NODE_ENV: 'production', AUTH_JWT_SECRET: SECRET, SHUTDOWN_DELAY_MS: '400' });
    const port = await listeningPort(started);
    const token = testToken({ key: SECRET });
    const body = readFileSync(`${root}examples/search-request.json`);

    // Start a search and send only half of its body, so it is in flight when SIGTERM arrives.
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    let req: ReturnType<typeof request> | undefined;
    const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
      req = request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/catalog/search',
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            'content-length': body.length,
          },
        },
        (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
    });
    req!.write(body.subarray(0, body.length / 2));
    await sleep(300);
    started.child.kill('SIGTERM');
    await sleep(150);
    // During SHUTDOWN_DELAY_MS readiness fails, but the listener still answers.
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(503);
    // Past the delay the listener is closed: new connections are refused...
    await waitFor(() => (started.stdout().includes('"closing"') ? true : undefined), 'close to begin', 5000);
    // (fetch would reuse the keep-alive connection of the /readyz call, which is still answered.)
    const connecting = new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => resolve(socket.destroy()));
      socket.on('error', reject);
    });
    await expect(connecting).rejects.toThrow(/ECONNREFUSED/);
    // ...while the search that was in flight still completes.
    expect(started.exitCode()).toBeNull();
    req!.end(body.subarray(body.length / 2));

    const { status, text } = await answer;
    const answeredAt = Date.now();
    expect(status).toBe(200);
    expect((JSON.parse(text) as { results: unknown[] }).results.length).toBeGreaterThan(0);
    expect(await started.exited).toBe(0);
    // The drained keep-alive connection does not hold the exit (the client agent would keep it 5 s).
    expect(Date.now() - answeredAt).toBeLessThan(3000);
    expect(started.stdout()).toContain('shutting down');
  });

  // npm runs the start script through `sh -c`; without `exec` the shell took npm's forwarded signal and
  // died, and node was left serving, orphaned (SIGTERM), or the signal was lost (SIGINT).
  it.each(['SIGTERM', 'SIGINT'] as const)(
    'npm start: %s to npm itself stops the server, and npm exits',
    async (signal) => {
      const npm = spawn('npm', ['start', '--silent'], {
        cwd: root,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          HOST: '127.0.0.1',
          PORT: '0',
          NODE_ENV: 'production',
          AUTH_JWT_SECRET: SECRET,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(npm);
      let stdout = '';
      npm.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      const exited = new Promise<void>((resolve) => npm.on('exit', () => resolve()));
      const port = await waitFor(() => {
        const match = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(stdout);
        return match ? Number(match[1]) : undefined;
      }, 'the server to listen');
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);

      npm.kill(signal);
      await exited;
      // Nothing listens any more: the server stopped with npm (not orphaned and still serving).
      const isListening = () =>
        new Promise<boolean>((resolve) => {
          const socket = connect(port, '127.0.0.1', () => resolve(!socket.destroy()));
          socket.on('error', () => resolve(false));
        });
      const until = Date.now() + 10_000;
      while ((await isListening()) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await isListening()).toBe(false);
      expect(stdout).toContain('shutting down');
    },
    30_000,
  );

  // `node dist/src/server.js | head -1`: the reader of stdout goes away while the service starts. The
  // quick start's write then failed (EPIPE) and started a shutdown that never ended, SIGTERM or not:
  // pino's exit flush retried the failed write forever.
  it.each([
    ['development', { NODE_ENV: 'development' }],
    ['production', { AUTH_JWT_SECRET: SECRET }],
  ] as const)(
    'in %s, with stdout closed after one line: keeps serving, and SIGTERM ends it within SHUTDOWN_TIMEOUT_MS',
    async (_mode, env) => {
      const service = await startServiceProcess(
        { ...env, SHUTDOWN_TIMEOUT_MS: '3000' },
        { build: 'dist', closeStdoutAfterLines: 1 },
      );
      expect(service.child.stdout!.destroyed).toBe(true);
      // A request is logged to the closed stdout, and still answered.
      const search = await fetch(`${service.url}/v1/catalog/search`, { method: 'POST' });
      expect(search.status).toBe(401);
      expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
      const stoppingAt = Date.now();
      // SIGKILL (the helper's) after 20 s would show here as 'SIGKILL'.
      expect(await service.stop(20_000)).toBe(0);
      expect(Date.now() - stoppingAt).toBeLessThan(3000 + 5000);
    },
    60_000,
  );
});
