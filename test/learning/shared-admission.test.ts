// Who and what may add to the shared model beyond k (issue 48, shared-admission.ts), on both ledgers
// (in process, and in a real Redis), with an injected clock: a project's reports count only once it has
// reported on two days, the first 24 h before; an association is used only once its threshold has held
// an hour unbroken; no more than the deployment's rate of associations become usable per hour, the
// first to meet its threshold first.
import { Redis } from 'ioredis';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SharedAdmission } from '../../src/config/types.js';
import { LocalLedger, type Contribution, type SharedLedger } from '../../src/learning/shared/shared-ledger.js';
import { RedisLedger } from '../../src/learning/shared/shared-ledger-redis.js';
import { associationId, SharedModel } from '../../src/learning/shared/shared-model.js';
import { connectRedis } from '../../src/redis/redis-connection.js';
import { SharedStore } from '../../src/redis/shared-store.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import { startApp, testConfig } from '../helpers/app.js';
import { parseConfig } from '../../src/config/index.js';
import { sampleTools } from '../fixtures/tools.js';
import { routerOf, TAUGHT_TOOL, untilReportsStored } from '../routes/feedback-client.js';
import { testToken } from '../helpers/tokens.js';

const K = 5;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Noon UTC: a day's reports and the next day's are on two dates. */
const T0 = Date.UTC(2026, 10, 2, 12);
const RULES: SharedAdmission = { minDays: 2, minAgeMs: DAY, holdMs: HOUR, newPerHour: 10 };
const TOOL = 'tool0000000000id';
const idOf = (i: number) => associationId(`term${String(i).padStart(12, '0')}`, TOOL);
const says = (from: number, count: number): Contribution[] =>
  Array.from({ length: count }, (_, i) => ({ id: idOf(from + i), sign: 1 }));

let redis: TestRedis;
let inspect: Redis;
const stores: SharedStore[] = [];

beforeAll(async () => {
  redis = await startTestRedis();
  inspect = new Redis(redis.url);
}, 30_000);
afterAll(async () => {
  for (const store of stores) store.redis.disconnect();
  inspect?.disconnect();
  await redis?.stop();
});

let prefixes = 0;
async function redisStore(): Promise<{ store: SharedStore; prefix: string }> {
  const prefix = `admission${(prefixes += 1)}:`;
  const store = new SharedStore(
    connectRedis({ url: redis.url, commandTimeoutMs: 5000, keyPrefix: prefix }),
    prefix,
    { error: () => {}, fallback: () => {} },
    pino({ level: 'silent' }),
  );
  stores.push(store);
  await new Promise<void>((resolve) => store.redis.once('ready', () => resolve()));
  return { store, prefix };
}

/** A model with every threshold at k + 1 (spread 1), and its ledger of either kind under `rules`. */
async function ledgerOf(kind: 'in process' | 'Redis', rules: SharedAdmission = RULES, maxSays?: number) {
  const model = new SharedModel({
    minProjects: K,
    thresholdSpread: 1,
    draw: () => 0,
    halfLifeMs: 14 * DAY,
    maxBoost: 0.75,
  });
  const admission = { ...rules, threshold: (id: string) => model.threshold(id) };
  if (kind === 'in process') {
    return { model, ledger: new LocalLedger(model, { maxAssociations: 10_000, maxContributions: 20_000, admission }) };
  }
  const { store, prefix } = await redisStore();
  return { model, prefix, ledger: new RedisLedger(model, store, 10_000, { admission, maxSays }) };
}

/**
 * The model a search would use, once any reload has finished: a Redis replica further behind than the
 * change list (the flood below) reloads into a new model in the background (shared-ledger-redis.ts).
 */
async function published(ledger: SharedLedger): Promise<SharedModel> {
  let model = await ledger.model();
  if (ledger instanceof RedisLedger && ledger.reloading) {
    await ledger.reloading;
    model = await ledger.model();
  }
  if (!model) throw new Error('the ledger could not confirm its model current');
  return model;
}

/** The associations a search at `now` would use. */
async function inUse(ledger: SharedLedger, now: number): Promise<number> {
  const model = await published(ledger);
  model.advance(now);
  return model.size - model.waiting;
}

/** Each project reports on day 0 (its first report) and on day 1, 25 h later: it is then established. */
async function age(ledger: SharedLedger, projects: string[], from = T0) {
  // A say of its own each (never k projects'), so that aging adds no association.
  for (const [i, project] of projects.entries()) {
    expect(await ledger.contribute(project, says(900_000 + i, 1), from)).toBe(true);
  }
  for (const [i, project] of projects.entries())
    await ledger.contribute(project, says(900_000 + i, 1), from + DAY + HOUR);
}

const projectsOf = (prefix: string, count = K + 1) => Array.from({ length: count }, (_, i) => `${prefix}-${i}`);

for (const kind of ['in process', 'Redis'] as const) {
  describe(`shared admission (${kind})`, () => {
    it('fresh projects count nothing until they reported on two days, the first 24 h before', async () => {
      const { model, ledger } = await ledgerOf(kind);
      const projects = projectsOf('fresh');
      // Any number of reports on the first day: nothing is counted.
      for (let round = 0; round < 5; round += 1) {
        for (const project of projects) await ledger.contribute(project, says(0, 3), T0 + round * 60_000);
      }
      expect(await inUse(ledger, T0 + 20 * HOUR)).toBe(0);
      expect(model.size).toBe(0);
      // The next date but 23 h after the first report: two days, not yet old enough.
      for (const project of projects) await ledger.contribute(project, says(0, 3), T0 + 23 * HOUR);
      expect(model.size).toBe(0);
      // 25 h after: counted, and held an hour before it is used.
      const met = T0 + 25 * HOUR;
      for (const project of projects) await ledger.contribute(project, says(0, 3), met);
      expect(await inUse(ledger, met)).toBe(0);
      expect(model.waiting).toBeGreaterThan(0);
      expect(await inUse(ledger, met + HOUR - 1)).toBe(0);
      // Three associations, one turn (6 min at 10 an hour) after another.
      expect(await inUse(ledger, met + HOUR)).toBe(1);
      expect(await inUse(ledger, met + HOUR + 12 * 60_000)).toBe(3);
      expect(model.boosts([idOf(0).slice(0, 16)], met + 2 * HOUR, () => true).size).toBe(1);
    });

    it('an association whose threshold breaks waits the whole hold again', async () => {
      const { ledger } = await ledgerOf(kind, { ...RULES, newPerHour: 1_000_000 });
      const projects = projectsOf('hold');
      await age(ledger, projects);
      const met = T0 + 2 * DAY;
      for (const project of projects) await ledger.contribute(project, says(0, 1), met);
      expect(await inUse(ledger, met + HOUR)).toBe(1);
      // One project leaves (DELETE): under the threshold, unused at once.
      expect(await ledger.withdraw(projects[0]!)).toBe('done');
      expect(await inUse(ledger, met + HOUR + 1)).toBe(0);
      // It comes back, aged again: the threshold is met anew and must hold a whole hour.
      await age(ledger, [projects[0]!], met);
      const again = met + DAY + HOUR;
      await ledger.contribute(projects[0]!, says(0, 1), again);
      expect(await inUse(ledger, again + HOUR - 1)).toBe(0);
      expect(await inUse(ledger, again + HOUR)).toBe(1);
    });

    it('a flood activates no more than the rate, the first to meet its threshold first', async () => {
      const { ledger } = await ledgerOf(kind);
      const honest = projectsOf('honest');
      const flood = projectsOf('flood');
      await age(ledger, [...honest, ...flood]);
      const start = T0 + 2 * DAY;
      // One honest association meets its threshold a minute before a flood of 200, said again and again.
      for (const project of honest) await ledger.contribute(project, [{ id: idOf(1000), sign: 1 }], start);
      for (let round = 0; round < 10; round += 1) {
        for (const project of flood) await ledger.contribute(project, says(0, 200), start + 60_000 + round);
      }
      const first = start + HOUR;
      // The honest association took the first turn, the flood's first the second.
      expect(await inUse(ledger, first + 6 * 60_000)).toBe(2);
      const model = await published(ledger);
      expect(model.boosts([idOf(1000).slice(0, 16)], first + 6 * 60_000, () => true).size).toBe(1);
      for (let hours = 1; hours <= 5; hours += 1) {
        // In any hour from the first turn on, at most the rate (10) become usable.
        expect(await inUse(ledger, first + hours * HOUR - 1)).toBe(10 * hours);
      }
      expect((await published(ledger)).waiting).toBe(201 - 50);
      // Twenty hours later every one of them is in use (the rate delays, it drops nothing).
      expect(await inUse(ledger, first + 21 * HOUR)).toBe(201);
    });
  });
}

it('in process, a flood of 110,000 fresh projects drops their histories, not an established one’s', async () => {
  const { ledger } = await ledgerOf('in process', { ...RULES, newPerHour: 1_000_000 });
  const projects = projectsOf('kept');
  await age(ledger, projects);
  for (let project = 0; project < 110_000; project += 1) {
    await ledger.contribute(`flood-${project}`, says(0, 1), T0 + DAY + 2 * HOUR);
  }
  // The established projects still count: their association is used an hour later.
  const met = T0 + 2 * DAY;
  for (const project of projects) await ledger.contribute(project, says(0, 1), met);
  expect(await inUse(ledger, met + HOUR)).toBe(1);
  expect(ledger).toBeInstanceOf(LocalLedger);
  expect((ledger as LocalLedger).bytes).toBeLessThanOrEqual(10_000 * 160 + 20_000 * 120 + 100_000 * 150);
});

describe('the says of a deployment in Redis (LEARNING_SHARED_MAX_SAYS)', () => {
  it('300 one-report projects stay within the bound; the least-established go first; counts stay exact', async () => {
    const budget = 20_000;
    const { ledger, prefix } = await ledgerOf('Redis', { ...RULES, minDays: 1, minAgeMs: 0 }, budget);
    const deployment = `${prefix}learning-shared:#deployment:`;
    // Five projects with a history of three days, each saying 500 associations.
    const established = projectsOf('established', 5);
    for (let day = 0; day < 3; day += 1) {
      for (const project of established) await ledger.contribute(project, says(0, 500), T0 + day * DAY);
    }
    // Then 300 projects of one report each, 200 says apiece (60,000 says: three times the bound).
    for (let project = 0; project < 300; project += 1) {
      await ledger.contribute(`once-${project}`, says(1000 + project * 7, 200), T0 + 3 * DAY + project);
    }
    const held = Number(await inspect.get(`${deployment}says-held`));
    const projects = await inspect.zcard(`${deployment}standing`);
    expect(held + 2 * projects).toBeLessThanOrEqual(budget);
    // Every established project kept its says; of the one-report projects only some did.
    for (const project of established) {
      expect(await inspect.zcard(`${prefix}learning-shared:${project}:says`)).toBe(500);
    }
    const kept = (await inspect.keys(`${prefix}learning-shared:once-*:says`)).length;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(300);
    // The counts are those of the says still held: an evicted project's says were withdrawn.
    let counted = 0;
    for (const [field, value] of Object.entries(await inspect.hgetall(`${deployment}associations`))) {
      if (field.startsWith('#')) continue;
      const [pos, neg] = value.split(',').map(Number);
      counted += pos! + neg!;
    }
    let saysHeld = 0;
    for (const key of await inspect.keys(`${prefix}learning-shared:*:says`)) saysHeld += await inspect.zcard(key);
    expect(counted).toBe(saysHeld);
    expect(held).toBe(saysHeld);
    // Withdrawn as by a DELETE, they leave a token as a DELETE does: a replica further behind than the
    // change list does not serve them while it reloads (shared-ledger-redis.ts).
    expect(await inspect.get(`${deployment}withdrawn`)).toMatch(/^bound:\d+:\d+$/);
    // An evicted project's DELETE is honest: nothing of it is left, so 204.
    expect(await ledger.withdraw('once-0')).toBe('done');
    // The bytes: the says keys and the histories within the bound at ~150 bytes a say (measured 2.75 MB
    // for 19,700 says and 91 projects: 138 bytes a say).
    let bytes = 0;
    for (const key of await inspect.keys(`${prefix}learning-shared:*:says`)) {
      bytes += Number(await inspect.memory('USAGE', key, 'SAMPLES', '0'));
    }
    for (const name of ['history', 'standing']) {
      bytes += Number(await inspect.memory('USAGE', `${deployment}${name}`, 'SAMPLES', '0'));
    }
    expect(bytes).toBeLessThanOrEqual(budget * 150);
  }, 120_000);

  it('says kept from before the rules count towards the bound once their project reports again', async () => {
    const { store, prefix } = await redisStore();
    const model = new SharedModel({
      minProjects: K,
      thresholdSpread: 1,
      draw: () => 0,
      halfLifeMs: DAY,
      maxBoost: 0.75,
    });
    // Before the rules: 300 says, no history.
    await new RedisLedger(model, store, 10_000).contribute('legacy', says(0, 300), T0);
    const admission = { ...RULES, threshold: (id: string) => model.threshold(id) };
    const ledger = new RedisLedger(model, store, 10_000, { admission, maxSays: 100_000 });
    await ledger.contribute('legacy', says(300, 10), T0 + DAY);
    expect(Number(await inspect.get(`${prefix}learning-shared:#deployment:says-held`))).toBe(300);
    // Its DELETE takes them out of the count again.
    expect(await ledger.withdraw('legacy')).toBe('done');
    expect(Number(await inspect.get(`${prefix}learning-shared:#deployment:says-held`))).toBe(0);
  });

  it('with the default history rule, 300 one-report projects leave no says at all', async () => {
    const { ledger, prefix } = await ledgerOf('Redis', RULES, 300_000);
    for (let project = 0; project < 300; project += 1) {
      await ledger.contribute(`flood-${project}`, says(0, 1000), T0 + project);
    }
    expect(await inspect.keys(`${prefix}learning-shared:*:says`)).toEqual([]);
    expect(await inUse(ledger, T0 + 30 * DAY)).toBe(0);
    // Only their histories: about 220 bytes each (measured 65 KB), counted as two says (~300 bytes).
    const deployment = `${prefix}learning-shared:#deployment:`;
    let bytes = 0;
    for (const name of ['history', 'standing']) {
      bytes += Number(await inspect.memory('USAGE', `${deployment}${name}`, 'SAMPLES', '0'));
    }
    expect(bytes).toBeLessThan(300 * 300);
  }, 60_000);
});

it('a DELETE whose says Redis evicted alone (allkeys-lru) answers 503 saying so, with no retry', async () => {
  const config = testConfig();
  const app = await startApp({
    ...config,
    redis: parseConfig({ REDIS_URL: redis.url, REDIS_TIMEOUT_MS: '2000', REDIS_KEY_PREFIX: 'route-evict:' }).redis,
    feedback: {
      ...config.feedback,
      shared: { enabled: true, minProjects: K, thresholdSpread: 1, maxAssociations: 10_000 },
    },
  });
  try {
    await untilReportsStored(app.url);
    const project = routerOf(app.url, 'evicted-project');
    const { meta } = await project.search(['jot the retro takeaways'], sampleTools);
    expect(
      (await project.report([{ requestId: meta.requestId, toolKey: TAUGHT_TOOL, outcome: 'succeeded' }])).status,
    ).toBe(202);
    const says = await inspect.keys('route-evict:learning-shared:evicted-project:says');
    expect(says).toHaveLength(1);
    await inspect.del(says[0]!);
    const response = await fetch(`${app.url}/v1/catalog/feedback`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${testToken({ projectId: 'evicted-project' })}` },
    });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBeNull();
    expect(((await response.json()) as { detail: string }).detail).toMatch(/learning record was evicted/);
  } finally {
    await app.close();
  }
}, 60_000);
