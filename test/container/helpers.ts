// Shared by the container tests: run-time JWTs, a sample search, bounded HTTP probes and CLI calls.
import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';

/** An HS256 JWT signed now (RFC 7519), as a router would issue it. */
export function signHs256(secret: string, claims: Record<string, unknown>, lifetimeSec = 300): string {
  const now = Math.floor(Date.now() / 1000);
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode({ iat: now, exp: now + lifetimeSec, ...claims })}`;
  return `${unsigned}.${createHmac('sha256', secret).update(unsigned).digest('base64url')}`;
}

export const sampleSearch = {
  query: ['open a new issue in the GitHub repository about the failing build'],
  tools: [
    {
      toolKey: 'github:create_issue',
      toolName: 'create_issue',
      serverName: 'GitHub',
      description: 'Open a new issue in a GitHub repository.',
      inputSchema: { type: 'object', properties: { repo: { type: 'string' }, title: { type: 'string' } } },
    },
    {
      toolKey: 'github:list_pull_requests',
      toolName: 'list_pull_requests',
      serverName: 'GitHub',
      description: 'List pull requests of a repository.',
    },
    {
      toolKey: 'slack:post_message',
      toolName: 'post_message',
      serverName: 'Slack',
      description: 'Post a message to a Slack channel.',
    },
    {
      toolKey: 'fs:read_file',
      toolName: 'read_file',
      serverName: 'Filesystem',
      description: 'Read the contents of a file.',
    },
    {
      toolKey: 'calendar:create_event',
      toolName: 'create_event',
      serverName: 'Calendar',
      description: 'Create a calendar event.',
    },
  ],
};

/**
 * A search as large as the default limits allow (5,000 tools, about 4.5 MB): legitimate, and a few of
 * them at once exhaust a heap capped small with NODE_OPTIONS=--max-old-space-size (how the container
 * tests provoke a heap overflow without any test-only code in the image).
 */
export function maximalSearch(): string {
  const tools = Array.from({ length: 5000 }, (_, i) => ({
    toolKey: `server${i % 50}:tool_${i}`,
    toolName: `tool_${i}`,
    serverName: `server${i % 50}`,
    description: Array.from({ length: 95 }, (_, j) => `word${(i * 7 + j) % 5000}`).join(' '),
  }));
  return JSON.stringify({ query: ['find the tool that reads files'], tools });
}

/** fetch with a hard timeout: right after a port is published, Docker's proxy can accept and then hang. */
export async function fetchWithin(url: string, init: RequestInit = {}, timeoutMs = 5000): Promise<Response> {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new Error(`no answer from ${url} within ${timeoutMs} ms`)),
    timeoutMs,
  );
  try {
    return await fetch(url, { ...init, signal: controller.signal });
  } finally {
    clearTimeout(timer);
  }
}

/** Polls until the URL answers 200; returns the milliseconds it took. */
export async function waitForOk(url: string, timeoutMs: number): Promise<number> {
  const started = Date.now();
  let last = 'no attempt';
  while (Date.now() - started < timeoutMs) {
    try {
      const response = await fetchWithin(url, {}, 1000);
      if (response.status === 200) return Date.now() - started;
      last = `status ${response.status}`;
    } catch (error) {
      last = String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs} ms (last: ${last})`);
}

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command with a time limit; resolves with its exit code instead of throwing on failure. */
export function run(
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number; cwd?: string } = {},
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      {
        env: options.env ?? process.env,
        cwd: options.cwd,
        timeout: options.timeoutMs ?? 60_000,
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number')
          return reject(new Error(`${command} ${args.join(' ')}: ${error.message}\n${stderr}`));
        resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr });
      },
    );
  });
}

export async function docker(args: string[], timeoutMs = 60_000): Promise<string> {
  const result = await run('docker', args, { timeoutMs });
  if (result.code !== 0) throw new Error(`docker ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return result.stdout.trim();
}

/**
 * Compose as the self-hosting guide runs it: scripts/compose.sh (v2 `docker compose` when present, else v1
 * `docker-compose`), bound to one project and env. No registry is reachable here, so the compose file's
 * Redis is the image built from Debian's redis-server (scripts/build-redis-standin.sh) unless REDIS_IMAGE
 * says otherwise: the guide's offline path.
 */
export async function composeRunner(project: string, env: NodeJS.ProcessEnv, cwd: string) {
  env = { REDIS_IMAGE: process.env.REDIS_IMAGE ?? 'local/redis:standin', ...env };
  return (args: string[], timeoutMs = 120_000) =>
    run('scripts/compose.sh', ['--project-name', project, '--file', 'docker-compose.yml', ...args], {
      env,
      cwd,
      timeoutMs,
    });
}
