// The service as a separate process (src/server.ts through tsx), as a replica runs in production:
// its own event loop, its own in-process caches, configured by environment only.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface ServiceProcess {
  readonly url: string;
  /** Audit and warning lines it logged (pino JSON). */
  readonly logs: Record<string, unknown>[];
  stop(): Promise<void>;
}

const SERVER = fileURLToPath(new URL('../../src/server.ts', import.meta.url));

// Every process still running when the test worker exits is killed, so that a test that failed
// half-way (one replica of two started, a start that timed out) leaves none behind.
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** Node options before the server's: e.g. `--expose-gc` and a preload (test/helpers/force-gc.mjs). */
export async function startServiceProcess(env: Record<string, string>, nodeOptions: readonly string[] = []): Promise<ServiceProcess> {
  const child: ChildProcess = spawn(process.execPath, [...nodeOptions, '--import', 'tsx', SERVER], {
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', HOST: '127.0.0.1', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  const logs: Record<string, unknown>[] = [];
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`service did not start in 30 s: ${stderr}`));
    }, 30_000);
    child.once('exit', (code) => reject(new Error(`service exited with ${code}: ${stderr}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        let entry: Record<string, unknown>;
        try {
          entry = JSON.parse(line) as Record<string, unknown>;
        } catch {
          continue;
        }
        logs.push(entry);
        const listening = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(String(entry.msg));
        if (listening) {
          clearTimeout(timer);
          resolve(listening[1]!);
        }
      }
    });
  });
  return {
    url,
    logs,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        // SIGTERM drains; a process that has not exited 10 s later is killed.
        const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}
