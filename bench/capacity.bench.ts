// Capacity figures for docs/capacity.md, from one replica of the real service (a child process, with a real
// Redis as a multi-replica deployment has), over loopback:
//   - searches per second per replica and per CPU core, by list size (100, 1,000, 5,000 real tools), the list
//     sent in full (gzip, as the client sends it) and by reference (`toolSet`), lexical (EMBEDDINGS=off) and
//     hybrid (the embedded encoder, the list already embedded); every search has a new query;
//   - encoder seconds per new 1,000-tool list (wall-clock and CPU, from its first search to `semantic: hybrid`);
//   - memory per warm project (the process's heap and RSS after a full GC, over 12 projects with their own
//     1,000-tool lists) and Redis bytes per project (INFO used_memory over the same projects).
// "Per core" is searches per CPU-second of the service process (all its threads): the figure to size with,
// as it does not depend on what else runs on the machine. "Per replica" is what this machine gave with
// CONCURRENCY searches in flight, the load generator sharing the cores; read it as a floor.
//
//   npm run bench -- capacity          (about 3-4 minutes on a quiet 2-core machine; CAPACITY_SECONDS=N per cell, default 3)
//   CAPACITY_MODES=lexical npm run bench -- capacity      (only one of lexical,hybrid)
//   CAPACITY_HYBRID_SIZES=100,1000,5000 npm run bench -- capacity   (hybrid at 5,000 tools too: embedding the
//   list takes about 250 CPU-seconds more, so it is left out by default)
import { fork, type ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { ToolInfo } from '@catalog-search/core';
import { loadCatalog } from '../eval/datasets.js';
import { startTestRedis } from '../test/helpers/redis-server.js';

const SIZES = [100, 1_000, 5_000];
const HYBRID_SIZES = (process.env.CAPACITY_HYBRID_SIZES ?? '100,1000').split(',').map(Number);
const SECONDS = Number(process.env.CAPACITY_SECONDS ?? 3);
const CONCURRENCY = 4;
const WARM_PROJECTS = 12;
const MODES = (process.env.CAPACITY_MODES ?? 'lexical,hybrid').split(',') as Array<'lexical' | 'hybrid'>;

const catalog = loadCatalog('smithery_catalog');
const queries = [...(loadCatalog('livemcpbench')?.queries ?? []), ...(loadCatalog('mcptoolbench_pp')?.queries ?? [])];
if (catalog === undefined || catalog.tools.length < 5_000 + WARM_PROJECTS * 300 || queries.length < 100) {
  throw new Error('capacity.bench.ts needs ../shared/bench beside the repo (smithery_catalog, livemcpbench)');
}
const allTools: ToolInfo[] = catalog.tools;
let queryAt = 0;
const nextQuery = (): string => queries[(queryAt += 1) % queries.length]!.slice(0, 300);

interface Service {
  child: ChildProcess;
  url: string;
  ask<T>(message: Record<string, unknown>): Promise<T>;
}

async function startService(env: Record<string, string>): Promise<Service> {
  const child = fork(fileURLToPath(new URL('./capacity-server.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, CAPACITY_ENV: JSON.stringify(env) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message: { port: number }) => resolve(message.port));
    child.once('exit', (code) => reject(new Error(`service exited ${code}`)));
  });
  let nextId = 0;
  const pending = new Map<number, (value: unknown) => void>();
  child.on('message', (message: { id?: number }) => {
    if (message.id !== undefined) pending.get(message.id)?.(message);
  });
  return {
    child,
    url: `http://127.0.0.1:${port}/v1/catalog/search`,
    ask: <T>(message: Record<string, unknown>) =>
      new Promise<T>((resolve) => {
        const id = (nextId += 1);
        pending.set(id, resolve as (value: unknown) => void);
        child.send({ ...message, id });
      }),
  };
}

/** A search must answer within the service's deadline (4 s): 30 s means it hung, and the bench says so. */
const SEARCH_TIMEOUT_MS = 30_000;
async function post(url: string, init: RequestInit): Promise<Response> {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new Error(`no answer from the service within ${SEARCH_TIMEOUT_MS} ms`)),
    SEARCH_TIMEOUT_MS,
  );
  try {
    const response = await fetch(url, { ...init, signal: controller.signal });
    await response.clone().arrayBuffer();
    return response;
  } finally {
    clearTimeout(timer);
  }
}

interface Usage {
  cpuMs: number;
  heapUsed: number;
  rss: number;
}

async function search(service: Service, token: string, body: Record<string, unknown>, gzip: boolean) {
  const json = JSON.stringify(body);
  const response = await post(service.url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      ...(gzip ? { 'content-encoding': 'gzip' } : {}),
    },
    body: gzip ? gzipSync(json) : json,
  });
  const answer = (await response.json()) as { meta?: { toolSet?: string; semantic?: string }; code?: string };
  if (response.status !== 200)
    throw new Error(`search answered ${response.status}: ${JSON.stringify(answer).slice(0, 300)}`);
  return answer;
}

/** CONCURRENCY loops of searches for SECONDS: searches per second, and per CPU-second of the service. */
async function measure(
  service: Service,
  makeBody: () => { body: Record<string, unknown>; gzip: boolean },
  token: string,
) {
  // Bodies are built (and gzipped) before the clock starts: the load generator shares the machine.
  const bodies = Array.from({ length: 40 }, makeBody).map(({ body, gzip }) => ({
    gzip,
    data: gzip ? gzipSync(JSON.stringify(body)) : JSON.stringify(body),
  }));
  let count = 0;
  let failures = 0;
  const before = await service.ask<Usage>({ type: 'usage' });
  const started = performance.now();
  const until = started + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, worker) => {
      for (let i = worker; performance.now() < until; i += CONCURRENCY) {
        const { gzip, data } = bodies[i % bodies.length]!;
        const response = await post(service.url, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            ...(gzip ? { 'content-encoding': 'gzip' } : {}),
          },
          body: data,
        });
        await response.arrayBuffer();
        if (response.status === 200) count += 1;
        else failures += 1;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const after = await service.ask<Usage>({ type: 'usage' });
  const cpuSeconds = (after.cpuMs - before.cpuMs) / 1000;
  return { perSecond: count / seconds, perCpuSecond: count / cpuSeconds, failures };
}

const token = (service: Service, projectId: string) =>
  service.ask<{ token: string }>({ type: 'token', projectId }).then((m) => m.token);
const mb = (bytes: number) => (bytes / 1e6).toFixed(1);

const redis = await startTestRedis();
const redisBytes = async (): Promise<number> => {
  const { execFileSync } = await import('node:child_process');
  const info = execFileSync('redis-cli', ['-p', String(redis.port), 'info', 'memory'], { encoding: 'utf8' });
  return Number(/used_memory:(\d+)/.exec(info)![1]);
};

console.log(
  `capacity: one replica, ${CONCURRENCY} searches in flight, ${SECONDS} s per cell, load average ${loadavg()[0]!.toFixed(2)}`,
);
try {
  for (const mode of MODES) {
    await redis.stop().catch(() => undefined);
    await redis.start();
    const service = await startService({
      EMBEDDINGS: mode === 'lexical' ? 'off' : 'on',
      REDIS_URL: redis.url,
      LOG_LEVEL: 'warn',
    });
    try {
      console.log(
        `\n## ${mode}${mode === 'hybrid' ? ' (embedded encoder; each list embedded before it is measured)' : ' (EMBEDDINGS=off)'}`,
      );
      console.log('tools  | full list: searches/s  per CPU-s | by reference: searches/s  per CPU-s');
      for (const size of mode === 'hybrid' ? HYBRID_SIZES : SIZES) {
        const tools = allTools.slice(0, size);
        const projectId = `capacity-${mode}-${size}`;
        const bearer = await token(service, projectId);
        // The first search sends the list (the service keeps it and answers its id); in hybrid, later searches
        // by reference until the encoder has embedded it.
        const started = performance.now();
        const usageBefore = await service.ask<Usage>({ type: 'usage' });
        const redisBefore = await redisBytes();
        const first = await search(service, bearer, { query: [nextQuery()], tools }, true);
        const toolSet = first.meta!.toolSet!;
        let semantic = first.meta!.semantic;
        while (mode === 'hybrid' && semantic !== 'hybrid') {
          await new Promise((resolve) => setTimeout(resolve, 250));
          semantic = (await search(service, bearer, { query: [nextQuery()], toolSet }, false)).meta!.semantic;
        }
        if (mode === 'hybrid') {
          const usage = await service.ask<Usage>({ type: 'usage' });
          // The first list also pays the model's load in the worker (the service starts it at start-up; here
          // the bench starts measuring right after), so read the 1,000-tool line.
          console.log(
            `(encoder: ${size} tools embedded in ${((performance.now() - started) / 1000).toFixed(1)} s wall, ${((usage.cpuMs - usageBefore.cpuMs) / 1000).toFixed(1)} CPU-s; ` +
              `the project now holds heap +${mb(usage.heapUsed - usageBefore.heapUsed)} MB, RSS +${mb(usage.rss - usageBefore.rss)} MB, Redis +${mb((await redisBytes()) - redisBefore)} MB)`,
          );
        }
        const full = await measure(
          service,
          () => ({ body: { query: [nextQuery()], tools, maxResults: 10 }, gzip: true }),
          bearer,
        );
        const byReference = await measure(
          service,
          () => ({ body: { query: [nextQuery()], toolSet, maxResults: 10 }, gzip: false }),
          bearer,
        );
        const failed = full.failures + byReference.failures;
        console.log(
          `${String(size).padStart(6)} | ${full.perSecond.toFixed(1).padStart(19)}  ${full.perCpuSecond.toFixed(1).padStart(9)} | ${byReference.perSecond.toFixed(1).padStart(22)}  ${byReference.perCpuSecond.toFixed(1).padStart(9)}${failed ? `  (${failed} non-200)` : ''}`,
        );
      }

      // Memory and Redis bytes per warm project (lexical; hybrid's are printed with its 1,000-tool list):
      // projects with their own 1,000-tool lists (windows of the catalog), each searched until warm.
      if (mode === 'hybrid') continue;
      const projects = WARM_PROJECTS;
      const before = await service.ask<Usage>({ type: 'usage' });
      const redisBefore = await redisBytes();
      for (let p = 0; p < projects; p += 1) {
        const tools = allTools
          .slice(5_000 + p * 300, 5_000 + p * 300 + 1_000)
          .map((tool) => ({ ...tool, toolKey: `p${p}/${tool.toolKey}` }));
        const bearer = await token(service, `warm-${mode}-${p}`);
        const first = await search(service, bearer, { query: [nextQuery()], tools }, true);
        await search(service, bearer, { query: [nextQuery()], toolSet: first.meta!.toolSet }, false);
      }
      const after = await service.ask<Usage>({ type: 'usage' });
      const redisAfter = await redisBytes();
      console.log(
        `per warm project (1,000 tools, ${projects} projects): heap +${mb((after.heapUsed - before.heapUsed) / projects)} MB, ` +
          `RSS +${mb((after.rss - before.rss) / projects)} MB; Redis +${mb((redisAfter - redisBefore) / projects)} MB`,
      );
    } finally {
      service.child.kill('SIGTERM');
    }
  }
} finally {
  await redis.stop();
}
console.log(`\n(load average ${loadavg()[0]!.toFixed(2)} at the end)`);
