// Durable state is not a cache: on a small Redis configured as shipped (docker-compose.yml's policy), one
// project filling it with distinct large lists, within its byte budget, evicts caches but never another
// project's learning; a replica that never served that project reads it intact. And the rule that makes
// it so holds for every key the service writes: a TTL on every cache key, none on a durable one.
import { tmpdir } from 'node:os';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DURABLE_KINDS } from '../../src/redis/shared-store.js';
import { routerOf, TAUGHT_TOOL, UNMATCHED_REQUESTS, untilReportsStored } from '../routes/feedback-client.js';
import { sampleTools } from '../fixtures/tools.js';
import { TEST_SECRET } from '../helpers/app.js';
import { shippedRedisArgs, startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import { startServiceProcess, type ServiceProcess } from '../helpers/service-process.js';
import { testToken } from '../helpers/tokens.js';

const PREFIX = 'catalog-search:';
const TEST = ['jot the squad retro takeaways'];

/**
 * The shipped Redis command (docker-compose.yml; test/deploy checks the Kubernetes one matches), with maxmemory
 * 48 MB and without its append-only file: this is about eviction, and the floods here would write hundreds of
 * MB to disk (persistence: durable-feedback.test.ts).
 */
function evictionRedisArgs(maxmemory: string): string[] {
  const args = shippedRedisArgs(tmpdir());
  args[args.indexOf('--maxmemory') + 1] = maxmemory;
  return [...args, '--appendonly', 'no'];
}

/** A distinct ~4 MB list: few tools with long descriptions (all kept in the tool set, ranked on the first 2,000 characters). */
function attackList(seed: number) {
  return Array.from({ length: 500 }, (_, at) => ({
    toolKey: `attack:tool_${seed}_${at}`,
    toolName: `tool_${seed}_${at}`,
    serverName: 'attack',
    description: `list records ${seed} ${at} `.padEnd(8_000, `${seed}-${at}-`),
  }));
}

let redis: TestRedis;
let inspect: Redis;
let replicas: ServiceProcess[];

beforeAll(async () => {
  redis = await startTestRedis({ args: evictionRedisArgs('48mb') });
  inspect = new Redis(redis.url);
  const env = {
    AUTH_JWT_SECRET: TEST_SECRET,
    AUTH_ISSUER: 'https://router.example',
    AUTH_AUDIENCE: 'catalog-search',
    REDIS_URL: redis.url,
    REDIS_TIMEOUT_MS: '2000',
    EMBEDDINGS: 'off',
    LOG_LEVEL: 'warn',
    // The work budget off: this test is about what Redis evicts, which the attacker's lists must reach.
    // Charged in full (the ranking thread's copy included), the default budget refused the attacker
    // after 7 of its ~4 MB lists, before Redis (48 MB) was full; the budget has tests of its own.
    RATE_LIMIT_WORK_PER_MINUTE: '0',
  };
  replicas = await Promise.all([startServiceProcess(env), startServiceProcess(env)]);
  // Reports are refused (503) until a replica's Redis connection is up.
  await Promise.all(replicas.map((replica) => untilReportsStored(replica.url)));
}, 120_000);

afterAll(async () => {
  inspect?.disconnect();
  await Promise.all((replicas ?? []).map((replica) => replica.stop()));
  await redis?.stop();
});

describe('Redis as shipped: caches give way, learning stays', () => {
  it("one project's distinct large lists evict caches, never another project's learning", async () => {
    const [a, b] = replicas as [ServiceProcess, ServiceProcess];
    const victim = routerOf(a.url, 'victim');
    for (const query of UNMATCHED_REQUESTS) {
      const { body } = await victim.report([{ toolKey: TAUGHT_TOOL, outcome: 'succeeded', query }]);
      expect(body.accepted).toBe(1);
    }
    expect((await victim.search(TEST, sampleTools)).results[0]!.toolKey).toBe(TAUGHT_TOOL);

    // The attack: distinct ~4 MB lists (within RATE_LIMIT_MB_PER_MINUTE's 300 MB) until Redis has evicted
    // and then as many lists again as it holds.
    const attacker = { authorization: `Bearer ${testToken({ projectId: 'attacker' })}` };
    const evicted = async () => Number(/evicted_keys:(\d+)/.exec(await inspect.info('stats'))?.[1]);
    const statuses: number[] = [];
    let afterEviction = 0;
    for (let seed = 0; seed < 60 && afterEviction < 12; seed += 1) {
      const response = await fetch(`${a.url}/v1/catalog/search`, {
        method: 'POST',
        headers: { ...attacker, 'content-type': 'application/json' },
        body: JSON.stringify({ query: ['list the records'], tools: attackList(seed) }),
      });
      await response.arrayBuffer();
      statuses.push(response.status);
      if ((await evicted()) > 0) afterEviction += 1;
    }
    expect(await evicted()).toBeGreaterThan(0);
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(12);

    // A replica that never served the victim reads its learning from Redis, intact.
    const onB = await routerOf(b.url, 'victim').search(TEST, sampleTools);
    expect(onB.meta.learning).toBe('raised');
    expect(onB.results[0]?.toolKey).toBe(TAUGHT_TOOL);
    expect(await inspect.llen(`${PREFIX}feedback:victim:log`)).toBe(UNMATCHED_REQUESTS.length);
  }, 240_000);

  it('every key has a TTL unless its kind is durable state', async () => {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await inspect.scan(cursor, 'MATCH', `${PREFIX}*`, 'COUNT', 1000);
      keys.push(...batch);
      cursor = next;
    } while (cursor !== '0');
    const kinds = new Set(keys.map((key) => key.slice(PREFIX.length).split(':')[0]));
    // The run wrote caches (tool sets, rate limits, remembered searches) and durable state (feedback).
    expect([...kinds]).toEqual(expect.arrayContaining(['tool-set', 'rate-limit', 'feedback']));
    for (const key of keys) {
      const durable = (DURABLE_KINDS as readonly string[]).includes(key.slice(PREFIX.length).split(':')[0]!);
      const ttl = await inspect.pttl(key);
      expect({ key, hasTtl: ttl > 0 }).toEqual({ key, hasTtl: !durable });
    }
  });
});
