// Durable means durable (issue 47): with Redis configured, a feedback report is answered 202 only once
// Redis holds it; otherwise 503 with Retry-After, and the client's queue sends it again. Real Redis
// (Debian's redis-server) that holds writes (CLIENT PAUSE WRITE), stops answering (DEBUG SLEEP), goes
// down (SIGKILL) or restarts (SIGTERM, with the shipped AOF settings); the service over loopback HTTP.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCatalogSearchClient, type FetchLike } from '@catalog-search/client';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleTools } from '../fixtures/tools.js';
import { startApp, testConfig, type RunningApp } from '../helpers/app.js';
import { shippedRedisArgs, startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import { testToken } from '../helpers/tokens.js';
import { routerOf, TAUGHT_TOOL, UNMATCHED_REQUESTS, untilReportsStored } from '../routes/feedback-client.js';

const TEST = ['jot the squad retro takeaways'];
const PREFIX = 'durable:';
const logKey = (project: string) => `${PREFIX}feedback:${project}:log`;

/** The toolKeys in a project's log in Redis. */
async function loggedTools(inspect: Redis, project: string): Promise<string[]> {
  return (await inspect.lrange(logKey(project), 0, -1)).map((value) => (JSON.parse(value) as { k: string }).k);
}

/** Polls `check` every 100 ms until it holds or `ms` pass (a condition, not a timing: generous bounds). */
async function until(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return check();
}

function serviceOn(redis: TestRedis, commandTimeoutMs: number): Promise<RunningApp> {
  return startApp(testConfig({ redis: { url: redis.url, commandTimeoutMs, keyPrefix: PREFIX } }));
}

/** Reports one use with a query; the answer's status, Retry-After and problem code. */
async function reportOnce(service: RunningApp, project: string, toolKey: string, query = TEST) {
  const response = await fetch(`${service.url}/v1/catalog/feedback`, {
    method: 'POST',
    headers: { authorization: `Bearer ${testToken({ projectId: project })}`, 'content-type': 'application/json' },
    body: JSON.stringify({ events: [{ query, toolKey, outcome: 'succeeded' }] }),
  });
  const body = (await response.json()) as { code?: string; accepted?: number };
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body };
}

describe('a report is answered 202 only once Redis holds it', () => {
  let redis: TestRedis;
  let inspect: Redis;
  let service: RunningApp;

  beforeAll(async () => {
    redis = await startTestRedis();
    inspect = new Redis(redis.url);
    service = await serviceOn(redis, 150);
    await until(async () => (await reportOnce(service, 'warm-up', TAUGHT_TOOL)).status === 202, 10_000);
  }, 30_000);

  afterAll(async () => {
    await inspect?.client('UNPAUSE').catch(() => undefined);
    inspect?.disconnect();
    await service?.close();
    await redis?.stop();
  });

  it('while Redis holds writes: 503 STORE_UNAVAILABLE with Retry-After, then the resent report counts once', async () => {
    // Held until unpaused, however slow the machine: the append cannot finish within REDIS_TIMEOUT_MS.
    await inspect.client('PAUSE', 600_000, 'WRITE');
    let refused;
    try {
      refused = await reportOnce(service, 'held', TAUGHT_TOOL);
    } finally {
      await inspect.client('UNPAUSE');
    }
    expect(refused.status).toBe(503);
    expect(refused.body.code).toBe('STORE_UNAVAILABLE');
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    // Nothing learned here either: the project's search is still the lexical one.
    expect((await routerOf(service.url, 'held').search(TEST, sampleTools)).meta).not.toHaveProperty('learning');

    // The client resends (the service skips Redis for a second after a timeout: until then 503 again).
    expect(await until(async () => (await reportOnce(service, 'held', TAUGHT_TOOL)).status === 202, 15_000)).toBe(true);
    // The held write landed when Redis resumed, and so did the resent one: one search, counted once.
    const logged = await loggedTools(inspect, 'held');
    expect(logged.length).toBeGreaterThanOrEqual(1);
    expect(new Set(logged)).toEqual(new Set([TAUGHT_TOOL]));
    const answer = await routerOf(service.url, 'held').search(TEST, sampleTools);
    expect(answer.meta.learning).toBe('raised');
    expect(answer.results[0]!.explanation).toContain('used for 1 similar request');
  }, 30_000);

  it('while Redis stops answering now and then, every report answered 202 is in Redis and every other got 503', async () => {
    // Redis sleeps 0.4 s, four times, while 3 clients report 60 distinct tools, one report a request.
    let sleeping = true;
    const sleeper = (async () => {
      for (let n = 0; n < 4; n += 1) {
        await redis.sleep(0.4);
        await new Promise((resolve) => setTimeout(resolve, 600));
      }
      sleeping = false;
    })();
    const answers = new Map<string, { status: number; retryAfter: string | null }>();
    let next = 0;
    const reporter = async () => {
      while (next < 60 || sleeping) {
        const toolKey = `flaky:tool_${next++}`;
        // A distinct request per tool: each report is its own search.
        const { status, retryAfter } = await reportOnce(service, 'flaky', toolKey, [`flaky request ${toolKey}`]);
        answers.set(toolKey, { status, retryAfter });
        // A refused client waits a little, as a client honouring Retry-After would (bounds the loop).
        if (status !== 202) await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    await Promise.all([reporter(), reporter(), reporter(), sleeper]);
    // Writes that timed out may still land once Redis wakes: wait for it to answer before reading.
    await inspect.ping();
    const logged = new Set(await loggedTools(inspect, 'flaky'));
    const accepted = [...answers].filter(([, answer]) => answer.status === 202).map(([toolKey]) => toolKey);
    const refused = [...answers].filter(([, answer]) => answer.status !== 202);
    console.log(
      `[durable] ${answers.size} reports: ${accepted.length} answered 202, ${refused.length} answered 503; ` +
        `${logged.size} in Redis`,
    );
    expect(accepted.filter((toolKey) => !logged.has(toolKey))).toEqual([]);
    for (const [, answer] of refused) expect(answer).toEqual({ status: 503, retryAfter: expect.any(String) });
  }, 60_000);

  it("while Redis is down, the client's queue keeps the reports and delivers them once it is back", async () => {
    await redis.kill();
    const statuses: number[] = [];
    const watching: FetchLike = async (input, init) => {
      const response = await fetch(input, init);
      if (input.endsWith('/feedback')) {
        statuses.push(response.status);
        // Redis comes back after the first refusal, and the service reconnects to it, before the client
        // sees that refusal: it then waits the Retry-After and resends (whatever the machine's speed).
        if (statuses.length === 1) {
          await redis.start();
          await until(async () => (await reportOnce(service, 'probe', TAUGHT_TOOL)).status === 202, 30_000);
        }
      }
      return response;
    };
    const client = createCatalogSearchClient({
      baseUrl: service.url,
      token: testToken({ projectId: 'outage' }),
      fetch: watching,
      reports: { flushDelayMs: 10 },
    });
    client.reportOutcome({ query: TEST, toolKey: TAUGHT_TOOL, outcome: 'succeeded' });
    await client.flushReports({ timeoutMs: 60_000 });
    expect(statuses[0]).toBe(503);
    expect(statuses.at(-1)).toBe(202);
    expect(await loggedTools(inspect, 'outage')).toEqual([TAUGHT_TOOL]);
  }, 90_000);

  it("a report naming another replica's search is refused (503), not ignored, while Redis cannot be asked", async () => {
    const other = await serviceOn(redis, 150);
    try {
      await until(async () => (await reportOnce(other, 'warm-up', TAUGHT_TOOL)).status === 202, 10_000);
      const { meta } = await routerOf(service.url, 'elsewhere').search(TEST, sampleTools);
      // The search is remembered in Redis (written after the answer: wait for it).
      expect(
        await until(async () => (await inspect.keys(`${PREFIX}feedback-search:elsewhere:*`)).length > 0, 10_000),
      ).toBe(true);
      const report = [{ requestId: meta.requestId, toolKey: TAUGHT_TOOL, outcome: 'succeeded' }];
      await redis.kill();
      let refused;
      try {
        // Unknown to this replica, and Redis down: "no recent search has this id" would lose the report.
        refused = await routerOf(other.url, 'elsewhere').report(report);
      } finally {
        await redis.start();
      }
      expect(refused.status).toBe(503);
      // Redis back (empty: its remembered search is gone too, so now the id is truly unknown).
      expect(
        await until(async () => (await routerOf(other.url, 'elsewhere').report(report)).status === 202, 15_000),
      ).toBe(true);
    } finally {
      await other.close();
    }
  }, 60_000);

  it('a report in flight when the service shuts down is stored before it is answered 202', async () => {
    const closing = await serviceOn(redis, 30_000);
    await until(async () => (await reportOnce(closing, 'warm-up', TAUGHT_TOOL)).status === 202, 10_000);
    await inspect.client('PAUSE', 600_000, 'WRITE');
    let answer;
    try {
      const reported = reportOnce(closing, 'closing', TAUGHT_TOOL);
      // The append is held inside Redis (a blocked client whose command is EVAL): then shut down.
      expect(await until(async () => /flags=b\S* .*cmd=eval/.test(String(await inspect.client('LIST'))), 20_000)).toBe(
        true,
      );
      const closed = closing.close();
      await new Promise((resolve) => setTimeout(resolve, 200));
      await inspect.client('UNPAUSE');
      answer = await reported;
      await closed;
    } finally {
      await inspect.client('UNPAUSE');
    }
    expect(answer.status).toBe(202);
    expect(await loggedTools(inspect, 'closing')).toEqual([TAUGHT_TOOL]);
  }, 60_000);
});

describe('learning survives a Redis restart with the shipped settings (AOF)', () => {
  async function teachThenRestart(args: readonly string[]) {
    const redis = await startTestRedis({ args });
    const services: RunningApp[] = [];
    try {
      const before = await serviceOn(redis, 2000);
      services.push(before);
      await untilReportsStored(before.url);
      const router = routerOf(before.url, 'restart');
      const lexical = await router.search(TEST, sampleTools);
      for (const query of UNMATCHED_REQUESTS.slice(0, 3)) {
        expect((await router.report([{ query, toolKey: TAUGHT_TOOL, outcome: 'succeeded' }])).status).toBe(202);
      }
      expect((await router.search(TEST, sampleTools)).results[0]!.toolKey).toBe(TAUGHT_TOOL);

      // A restart (SIGTERM, as `docker compose restart` or a rolled pod), then a new replica: only what
      // Redis kept can teach it.
      await redis.stop();
      await redis.start();
      const after = await serviceOn(redis, 2000);
      services.push(after);
      const inspect = new Redis(redis.url);
      const keptReports = await inspect.llen(logKey('restart'));
      inspect.disconnect();
      // Until its Redis connection is ready a replica answers lexically.
      let answer = await routerOf(after.url, 'restart').search(TEST, sampleTools);
      await until(async () => {
        answer = await routerOf(after.url, 'restart').search(TEST, sampleTools);
        return answer.meta.learning !== undefined;
      }, 5000);
      return { lexical, answer, keptReports };
    } finally {
      await Promise.all(services.map((service) => service.close()));
      await redis.stop();
    }
  }

  it("with docker-compose.yml's Redis command (AOF on), a new replica still ranks the taught tool first", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'durable-redis-'));
    try {
      const shipped = shippedRedisArgs(dir);
      expect(shipped.join(' ')).toContain('--appendonly yes --appendfsync everysec');
      const { answer, keptReports } = await teachThenRestart(shipped);
      expect(keptReports).toBe(3);
      expect(answer.results[0]!.toolKey).toBe(TAUGHT_TOOL);
      expect(answer.meta.learning).toBe('raised');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('without persistence (the old setting) the same restart forgets it: what the AOF is for', async () => {
    const { lexical, answer, keptReports } = await teachThenRestart(['--appendonly', 'no', '--save', '']);
    expect(keptReports).toBe(0);
    expect(answer.meta).not.toHaveProperty('learning');
    expect(JSON.stringify(answer.results)).toBe(JSON.stringify(lexical.results));
  }, 60_000);
});
