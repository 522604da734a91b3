// Fair sharing between projects (src/fairness/fair-share.ts), over real HTTP: searches in flight, work
// (tools × sub-queries) and bytes per project per minute; over a limit → 429 problem+json with
// Retry-After, for that project only.
import { describe, expect, it } from 'vitest';
import type { Reranker } from '../../src/rerank/stage.js';
import { startApp, testConfig } from '../helpers/app.js';
import { bearer } from '../helpers/tokens.js';
import { sampleTools } from '../fixtures/tools.js';
import { FairShare, WORK_PER_CPU_MS, type SearchSlot } from '../../src/fairness/fair-share.js';
import type { ProblemError } from '../../src/http/errors.js';
import { searchAs } from '../helpers/search.js';

async function search(
  url: string,
  projectId: string,
  body: unknown = { query: ['create a github issue'], tools: sampleTools },
) {
  const response = await searchAs<Record<string, unknown>>(url, body, { projectId });
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    type: response.headers.get('content-type'),
    json: response.body,
  };
}

const limits = (overrides: Partial<ReturnType<typeof testConfig>['fairShare']>) =>
  testConfig({ fairShare: { maxInFlight: 0, maxWaiting: 0, workPerMinute: 0, bytesPerMinute: 0, ...overrides } });

describe('security: one project cannot take more than its share', () => {
  it('limits searches in flight per project; other projects and later searches are served', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let bothArrived!: () => void;
    const twoInFlight = new Promise<void>((resolve) => (bothArrived = resolve));
    let arrived = 0;
    // A reranker that holds every search until released: searches stay in flight.
    const reranker: Reranker = {
      rerank: async (request) => {
        if (++arrived === 2) bothArrived();
        await held;
        return { ranker: 'bm25', ranked: request.lexical, degraded: 'timeout' };
      },
    };
    const server = await startApp(limits({ maxInFlight: 2 }), { reranker });
    try {
      const first = [search(server.url, 'busy'), search(server.url, 'busy')];
      await twoInFlight; // both admitted and held, however slow the machine
      const third = await search(server.url, 'busy');
      expect(third.status).toBe(429);
      expect(third.type).toMatch(/^application\/problem\+json/);
      expect(third.json).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
      expect(Number(third.retryAfter)).toBeGreaterThan(0);
      const other = search(server.url, 'other'); // its own two slots
      release();
      expect((await Promise.all(first)).map((r) => r.status)).toEqual([200, 200]);
      expect((await other).status).toBe(200);
      expect((await search(server.url, 'busy')).status).toBe(200); // slots are given back
    } finally {
      await server.close();
    }
  });

  it('searches waiting on the model give up their work slots: 6 held by the reranker with 2 work and 4 waiting slots, the 7th refused', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let sixArrived!: () => void;
    const six = new Promise<void>((resolve) => (sixArrived = resolve));
    let arrived = 0;
    const reranker: Reranker = {
      rerank: async (request) => {
        if (++arrived === 6) sixArrived();
        await held;
        return { ranker: 'bm25', ranked: request.lexical, degraded: 'timeout' };
      },
    };
    const server = await startApp(limits({ maxInFlight: 2, maxWaiting: 4 }), { reranker });
    try {
      const first = Array.from({ length: 6 }, () => search(server.url, 'router'));
      await six; // all six reached the model: four gave up their work slot, two kept theirs
      const seventh = await search(server.url, 'router');
      expect(seventh.status).toBe(429);
      expect(seventh.json.detail).toMatch(/2 searches worked on and 4 waiting/);
      release();
      expect((await Promise.all(first)).map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
      expect((await search(server.url, 'router')).status).toBe(200); // every slot was given back
    } finally {
      await server.close();
    }
  });

  it('charges tools × sub-queries: a project past its work budget waits, others do not', async () => {
    // 600 per minute = a bucket of 100 (10 s); one search of 10 tools × 16 sub-queries costs 160.
    const server = await startApp(limits({ workPerMinute: 600 }));
    const heavy = {
      query: Array.from({ length: 16 }, (_, at) => `step ${at} create an issue`),
      tools: sampleTools.slice(0, 10),
    };
    try {
      expect((await search(server.url, 'heavy', heavy)).status).toBe(200); // admitted while the bucket is positive
      const refused = await search(server.url, 'heavy', { query: ['one'], tools: sampleTools.slice(0, 1) });
      expect(refused.status).toBe(429);
      expect(refused.json.detail).toMatch(/share of search work/);
      expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(6); // 60 of debt at 10 per second
      expect((await search(server.url, 'light')).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it("charges ranking's CPU time: a loop of large Japanese requests is refused, English of the same size is not", async () => {
    // The default budget: 600,000 a minute, a bucket of 100,000 units (~310 ms of ranking's CPU). Six
    // searches of 16 sub-queries of ~2,000 characters over one tool, back to back: 96 units each by
    // count, ~19 ms of CPU each in English (~6,000 units) and ~210 ms in random Japanese (~67,000).
    const server = await startApp(limits({ workPerMinute: 600_000 }));
    const tools = sampleTools.slice(0, 1);
    const sentence = 'create a calendar event for the weekly team meeting and invite everyone on the list ';
    const english = { query: Array.from({ length: 16 }, () => sentence.repeat(24).slice(0, 2_000)), tools };
    const randomText = (length: number, from: number, to: number) =>
      Array.from({ length }, () => String.fromCodePoint(from + Math.floor(Math.random() * (to - from)))).join('');
    const japanese = () => ({
      query: Array.from({ length: 16 }, () => randomText(1_000, 0x3041, 0x3097) + randomText(1_000, 0x4e00, 0x9fa0)),
      tools,
    });
    try {
      const statuses = { english: [] as number[], japanese: [] as number[] };
      for (let at = 0; at < 6; at += 1) {
        statuses.english.push((await search(server.url, 'english', english)).status);
        statuses.japanese.push((await search(server.url, 'japanese', japanese())).status);
      }
      expect(statuses.english).toEqual([200, 200, 200, 200, 200, 200]);
      expect(statuses.japanese.slice(0, 1)).toEqual([200]); // admitted while its bucket was positive
      expect(statuses.japanese).toContain(429);
    } finally {
      await server.close();
    }
  });

  it('charges the CPU time of filter.tools rules, refused or not: a project past its budget waits, others do not', async () => {
    // 6,000 per minute = a bucket of 1,000 units, ~3 ms of CPU (WORK_PER_CPU_MS).
    const server = await startApp(limits({ workPerMinute: 6_000 }));
    // 4 rules of ~200 instructions each on 256-character names: 6–25 ms a tool on a quiet machine, so
    // 12–50 ms for 2 tools, 4x the bucket or more on any machine; the ranking costs 2 units. Stretched
    // tenfold by a busy host (load 15-20) it still ends well within the search's deadline and the 2 s
    // budget: 16 rules on 5 tools ran past the deadline there and the search was refused instead.
    const tools = Array.from({ length: 2 }, (_, i) => ({
      toolKey: `s:${i}`,
      toolName: 'ab'.repeat(124) + i,
      serverName: 'S',
      description: 'create an issue',
    }));
    const rules = Array.from({ length: 4 }, (_, i) => `/[a-z]{1,100}b${i}/`);
    try {
      const filtered = await search(server.url, 'filtering', {
        query: ['create an issue'],
        tools,
        filter: { tools: rules },
      });
      expect(filtered.json.detail ?? filtered.status).toBe(200);
      const refused = await search(server.url, 'filtering');
      expect(refused.status).toBe(429);
      expect(refused.json.detail).toMatch(/share of search work/);
      expect((await search(server.url, 'other')).status).toBe(200);
      // A refused rule set is charged too: a fresh project whose rules are too costly for its list.
      const name = 'a'.repeat(512);
      const attack = {
        query: ['x'],
        tools: [{ toolKey: name, toolName: name, serverName: 'S' }],
        filter: { tools: ['[^a]', 'b', 'c', 'd', 'e'].map((tail) => `/(?:(?:a{1,30}){1,30})${tail}/`) },
      };
      let refusedRuns = 0;
      for (; refusedRuns < 1_000; refusedRuns += 1)
        if ((await search(server.url, 'attacker', attack)).status !== 400) break;
      expect((await search(server.url, 'attacker')).status).toBe(429);
      // Compiling 9,010 instructions costs milliseconds: the bucket ran out after a few runs, not a thousand.
      expect(refusedRuns).toBeLessThan(1_000);
    } finally {
      await server.close();
    }
  });

  it('charges request bytes before the body is parsed', async () => {
    const server = await startApp(limits({ bytesPerMinute: 6 * 1024 })); // a bucket of 1 KB
    const big = {
      query: ['create an issue'],
      tools: sampleTools.map((tool) => ({ ...tool, description: 'd'.repeat(500) })),
    };
    try {
      expect((await search(server.url, 'big', big)).status).toBe(200);
      expect((await search(server.url, 'big')).status).toBe(429);
      expect((await search(server.url, 'small')).status).toBe(200);
    } finally {
      await server.close();
    }
  });
  it('charges the bytes of a body that declares fewer: sent chunked, without Content-Length', async () => {
    const server = await startApp(limits({ bytesPerMinute: 6 * 1024 })); // a bucket of 1 KB
    const big = JSON.stringify({
      query: ['create an issue'],
      tools: sampleTools.map((tool) => ({ ...tool, description: 'd'.repeat(500) })),
    });
    const chunked = (projectId: string) =>
      fetch(`${server.url}/v1/catalog/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: bearer({ projectId }) },
        body: new Blob([big]).stream(),
        duplex: 'half',
      } as RequestInit);
    try {
      expect((await chunked('chunked')).status).toBe(200);
      expect((await chunked('chunked')).status).toBe(429); // the first one's ~25 KB were charged
      expect((await search(server.url, 'other')).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe('FairShare buckets', () => {
  it('refill at their rate and say when to retry', async () => {
    let now = 0;
    const share = new FairShare(
      { maxInFlight: 0, maxWaiting: 0, workPerMinute: 60_000, bytesPerMinute: 0 },
      { now: () => now },
    ); // 1,000 per second
    const slot = await share.admit('p', 0, 1_000);
    share.chargeWork('p', 12_000); // a bucket of 10,000: 2,000 in debt
    slot.finish();
    const refusal = await share.admit('p', 0, 1_000).then(
      () => undefined,
      (error: unknown) => error as ProblemError,
    );
    expect(refusal?.code).toBe('RATE_LIMITED');
    expect(refusal?.extra.headers?.['retry-after']).toBe('3');
    now += 2_100;
    await expect(share.admit('p', 0, 1_000)).resolves.toBeDefined();
  });

  it('charges CPU time at the rate of ranking work', async () => {
    const share = new FairShare(
      { maxInFlight: 0, maxWaiting: 0, workPerMinute: 60_000, bytesPerMinute: 0 },
      { now: () => 0 },
    );
    (await share.admit('p', 0, 1_000)).finish();
    share.settleWork('p', 0, 10_000 / WORK_PER_CPU_MS + 1); // the whole bucket and a little more
    await expect(share.admit('p', 0, 1_000)).rejects.toMatchObject({ code: 'RATE_LIMITED' });
  });
});

describe('FairShare slots: work and waiting', () => {
  it('a search past the work slots waits for one, unread, and gets the slot a search lets go of', async () => {
    const share = new FairShare({ maxInFlight: 2, maxWaiting: 2, workPerMinute: 0, bytesPerMinute: 0 });
    const first = await share.admit('p', 0, 10_000);
    await share.admit('p', 0, 10_000);
    let third: SearchSlot | undefined;
    const waiting = share.admit('p', 0, 10_000).then((slot) => (third = slot));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(third).toBeUndefined();
    first.startWaiting(); // the first now waits on a model: its slot goes to the third
    await waiting;
    expect(third).toBeDefined();
    // Two working and one waiting on its model: a fourth may still wait for a slot; then every place is
    // taken and a fifth is refused at once.
    const fourth = share.admit('p', 0, 10_000);
    await expect(share.admit('p', 0, 10_000)).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      detail: expect.stringMatching(/2 searches worked on and 2 waiting/),
    });
    // Another project has its own slots.
    await expect(share.admit('q', 0, 10_000)).resolves.toBeDefined();
    third!.finish(); // the fourth gets the third's slot
    await expect(fourth).resolves.toBeDefined();
  });

  it('refuses a search that found no work slot by its deadline, and forgets it', async () => {
    const share = new FairShare({ maxInFlight: 1, maxWaiting: 4, workPerMinute: 0, bytesPerMinute: 0 });
    const only = await share.admit('p', 0, 10_000);
    await expect(share.admit('p', 0, 20)).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      detail: expect.stringMatching(/deadline/),
    });
    only.finish();
    only.finish(); // idempotent: gives back one slot, not two
    const next = await share.admit('p', 0, 20);
    await expect(share.admit('p', 0, 20)).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    next.finish();
  });

  it("a waiting search keeps its work slot when its project's waiting searches are at the limit", async () => {
    const share = new FairShare({ maxInFlight: 1, maxWaiting: 0, workPerMinute: 0, bytesPerMinute: 0 });
    const slot = await share.admit('p', 0, 10_000);
    slot.startWaiting();
    await expect(share.admit('p', 0, 10_000)).rejects.toMatchObject({ code: 'RATE_LIMITED' });
  });
});
