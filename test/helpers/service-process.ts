// The service as a separate process, as a replica runs in production: its own event loop, its own
// in-process caches, configured by environment only. Two builds: `source` (src/server.ts through tsx,
// for the main suite: no build step) and `dist` (node dist/src/server.js, for the reliability suite,
// whose npm script builds first). Ready once /healthz answers on its free loopback port.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const SOURCE = `${root}src/server.ts`;
// RELIABILITY_SERVER_JS runs the dist scenarios against another build (e.g. main's, to compare figures).
const DIST = process.env.RELIABILITY_SERVER_JS ?? `${root}dist/src/server.js`;

export interface ServiceProcessOptions {
  /** `source` (default): src/server.ts through tsx. `dist`: the built dist/src/server.js. */
  build?: 'source' | 'dist';
  /** Node options before the server's: e.g. `--expose-gc` and a preload (test/helpers/force-gc.mjs). */
  nodeOptions?: readonly string[];
  /**
   * How long it may take to answer /healthz: default 15 s for `dist`, 60 s for `source` (tsx compiles
   * src/ first: 23 s measured for one process on this 2-core machine at a load average of 22).
   */
  startTimeoutMs?: number;
  /** Stops reading stdout (closes the pipe) after this many lines, as `node server.js | head -N` does. */
  closeStdoutAfterLines?: number;
}

export interface ServiceProcess {
  readonly url: string;
  readonly port: number;
  readonly child: ChildProcess;
  /** The JSON lines it logged on stdout (pino: audit lines, warnings), parsed. */
  readonly logs: Record<string, unknown>[];
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code (or the signal name) once the process has exited. */
  readonly exited: Promise<number | string>;
  /** Sends SIGTERM (which drains) and waits for the exit; SIGKILL after `timeoutMs` (default 15 s). */
  stop(timeoutMs?: number): Promise<number | string>;
}

// Every process still running when the test worker exits is killed, so that a test that failed
// half-way (one replica of two started, a start that timed out) leaves none behind.
const running = new Set<ServiceProcess>();
process.once('exit', () => {
  for (const service of running) service.child.kill('SIGKILL');
});

/** Starts the service with `env` on top of a production baseline (loopback, a free port) and waits until it answers. */
export async function startServiceProcess(
  env: Record<string, string>,
  options: ServiceProcessOptions = {},
): Promise<ServiceProcess> {
  const dist = options.build === 'dist';
  if (dist && !existsSync(DIST))
    throw new Error(`${DIST} is missing: run \`npm run build\` first (npm run test:reliability does)`);
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [...(options.nodeOptions ?? []), ...(dist ? [DIST] : ['--import', 'tsx', SOURCE])],
    {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', HOST: '127.0.0.1', PORT: String(port), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const logs: Record<string, unknown>[] = [];
  let output = '';
  let buffered = '';
  let stdoutLines = 0;
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    stdoutLines += chunk.toString().split('\n').length - 1;
    if (options.closeStdoutAfterLines !== undefined && stdoutLines >= options.closeStdoutAfterLines)
      child.stdout!.destroy();
    buffered += chunk.toString();
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      try {
        logs.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // not a log line
      }
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  const url = `http://127.0.0.1:${port}`;
  const service: ServiceProcess = {
    url,
    port,
    child,
    logs,
    output: () => output,
    exited,
    async stop(timeoutMs = 15_000) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
        running.delete(service);
      }
    },
  };
  running.add(service);
  const startTimeoutMs = options.startTimeoutMs ?? (dist ? 15_000 : 60_000);
  const until = Date.now() + startTimeoutMs;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`the service exited with ${child.exitCode} before it listened:\n${output}`);
    const ok = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) }).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return service;
    if (Date.now() > until) {
      await service.stop(1000);
      throw new Error(`the service did not answer /healthz within ${startTimeoutMs / 1000} s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Stops every service process this worker started and has not stopped yet (afterAll). */
export async function stopAllServiceProcesses(): Promise<void> {
  await Promise.all([...running].map((service) => service.stop()));
}
