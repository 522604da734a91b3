// A real Redis for tests: Debian's redis-server (installed by .ci/run), started on a free loopback
// port with no persistence (unless `args` turn it on), in its own process that the test stops (and may restart on the same
// port, to test an outage).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { parse } from 'yaml';
import { freePort } from './free-port.js';

const REDIS_SERVER = process.env.REDIS_SERVER_BIN ?? '/usr/bin/redis-server';

export interface TestRedis {
  readonly port: number;
  readonly url: string;
  /** Kills the server (SIGKILL: an outage, not a shutdown) and waits for it to be gone. */
  kill(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
  /** Makes the server stop answering for `seconds` (DEBUG SLEEP): a slow Redis. */
  sleep(seconds: number): Promise<void>;
  stop(): Promise<void>;
}

export interface TestRedisOptions {
  /** Require this password (AUTH), as a managed Redis does. */
  password?: string;
  /** Serve TLS only, with this PEM certificate and key (the URL is then rediss://localhost). */
  tls?: { certFile: string; keyFile: string };
  /** More redis-server arguments (e.g. the shipped `--maxmemory-policy`); later ones win. */
  args?: readonly string[];
}

/**
 * The Redis arguments docker-compose.yml ships (its redis `command`, which the Kubernetes overlay repeats:
 * test/deploy), with its data directory (`--dir /data`, the volume) moved to `dir` on this machine.
 */
export function shippedRedisArgs(dir: string): string[] {
  const compose = parse(readFileSync(new URL('../../docker-compose.yml', import.meta.url), 'utf8')) as {
    services: { redis: { command: string[] } };
  };
  const args = compose.services.redis.command.slice(1);
  const at = args.indexOf('--dir');
  if (at < 0) throw new Error('docker-compose.yml: the redis command names no --dir');
  args[at + 1] = dir;
  return args;
}

export async function startTestRedis(options: TestRedisOptions = {}): Promise<TestRedis> {
  if (!existsSync(REDIS_SERVER)) {
    throw new Error(
      `${REDIS_SERVER} not found: install Debian's redis-server (apt-get install -y redis-server), as .ci/run does`,
    );
  }
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    const listen = options.tls
      ? [
          '--port',
          '0',
          '--tls-port',
          String(port),
          '--tls-cert-file',
          options.tls.certFile,
          '--tls-key-file',
          options.tls.keyFile,
          '--tls-auth-clients',
          'no',
        ]
      : ['--port', String(port)];
    const auth = options.password === undefined ? [] : ['--requirepass', options.password];
    // DEBUG SLEEP (a Redis that stops answering for a while) from loopback only.
    child = spawn(
      REDIS_SERVER,
      [
        ...listen,
        ...auth,
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--protected-mode',
        'no',
        '--enable-debug-command',
        'local',
        ...(options.args ?? []),
      ],
      {
        stdio: 'ignore',
      },
    );
    await waitForPong(port, options.tls !== undefined);
  };
  const kill = async (signal: NodeJS.Signals) => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill(signal);
    });
  };
  await start();
  const sleep = (seconds: number) =>
    new Promise<void>((resolve, reject) => {
      // Sent on its own connection; resolves once the command is written (the server is then busy).
      const socket = connect(port, '127.0.0.1', () => socket.write(`DEBUG SLEEP ${seconds}\r\n`, () => resolve()));
      socket.once('error', reject);
      socket.once('data', () => socket.destroy());
    });
  const url = options.tls ? `rediss://localhost:${port}` : `redis://127.0.0.1:${port}`;
  return { port, url, start, sleep, kill: () => kill('SIGKILL'), stop: () => kill('SIGTERM') };
}

/** Up once it answers PING at all (+PONG, or -NOAUTH when it wants a password). */
async function waitForPong(port: number, tls: boolean): Promise<void> {
  const until = Date.now() + 10_000;
  while (Date.now() < until) {
    const pong = await new Promise<boolean>((resolve) => {
      const socket = tls
        ? tlsConnect({ port, host: '127.0.0.1', rejectUnauthorized: false }, () => socket.write('PING\r\n'))
        : connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
      socket.setTimeout(500, () => socket.destroy());
      socket.once('error', () => resolve(false));
      socket.once('close', () => resolve(false));
      socket.once('data', (data) => {
        resolve(/^(\+PONG|-NOAUTH)/.test(data.toString()));
        socket.destroy();
      });
    });
    if (pong) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`redis-server did not answer on port ${port}`);
}
