// The semantic stage over the endpoint source (real SDK, real HTTP to our test server): background
// embedding of new lists, the wait share, fault statuses, per-project scope and the byte bound.
import type { ToolInfo } from '@catalog-search/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryBudget } from '../../src/memory/exports.js';
import { startDeadline } from '../../src/waits/deadline.js';
import { createEndpointSource } from '../../src/semantic/endpoint-source.js';
import { VectorProvider, type VectorProviderOptions } from '../../src/semantic/vector-provider.js';
import { startOpenAITestServer, type OpenAITestServer } from '../helpers/openai-test-server.js';

let server: OpenAITestServer;
beforeAll(async () => {
  server = await startOpenAITestServer();
});
afterAll(() => server.close());
beforeEach(() => server.setEmbeddings({ kind: 'vectors' }));

const tools = (prefix: string, count: number): ToolInfo[] =>
  Array.from({ length: count }, (_, i) => ({
    toolKey: `${prefix}:tool_${i}`,
    toolName: `tool_${i}`,
    serverName: prefix,
    description: `${prefix} tool number ${i} does thing ${i}`,
  }));

function stage(options: Partial<VectorProviderOptions> = {}): VectorProvider {
  const embedder = createEndpointSource({ baseURL: server.baseURL, model: 'test-embed', batchSize: 8 });
  const memory = new MemoryBudget({ maxBytes: 64 * 1024 * 1024, projectShare: 0.25 });
  return new VectorProvider(embedder, {
    cacheBytes: 10_000_000,
    memory,
    waitShare: 0.5,
    maxQueuedPerProject: 1000,
    ...options,
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('semantic stage', () => {
  it('a new list small enough to embed within the wait share is hybrid on its first search', async () => {
    const list = tools('alpha', 20);
    const result = await stage().vectors('p1', { query: ['thing 3'], tools: list }, startDeadline(4000));
    expect(result.status).toBe('hybrid');
    expect(result.tools.toArray().every((vector) => vector !== undefined)).toBe(true);
    expect(result.queries).toHaveLength(1);
  });

  it('a slow endpoint: the search stops waiting at its share of the deadline; the next search of the list is hybrid', async () => {
    const semantic = stage({ waitShare: 0.2 });
    const list = tools('beta', 24);
    await semantic.vectors('p1', { query: ['warm the query'], tools: [] }, startDeadline(4000));
    server.setEmbeddings({ kind: 'vectors' }, 150);
    const started = performance.now();
    const first = await semantic.vectors('p1', { query: ['warm the query'], tools: list }, startDeadline(1000));
    expect(performance.now() - started).toBeLessThan(900);
    expect(['pending', 'partial']).toContain(first.status);
    expect(first.tools.toArray().some((vector) => vector === undefined)).toBe(true);
    await sleep(3 * 150 + 300);
    const second = await semantic.vectors('p1', { query: ['warm the query'], tools: list }, startDeadline(1000));
    expect(second.status).toBe('hybrid');
  });

  it('a warm search waits on nothing: it makes no timer and reads no deadline signal; one that must embed a query makes a timer', async () => {
    const semantic = stage();
    const list = tools('warm', 5);
    await semantic.vectors('p1', { query: ['warm query'], tools: list }, startDeadline(4000));
    let reads = 0;
    const watched = {
      get signal() {
        reads += 1;
        return AbortSignal.timeout(4000);
      },
      remainingMs: () => 4000,
    };
    const timeout = vi.spyOn(globalThis, 'setTimeout');
    try {
      const warm = await semantic.vectors('p1', { query: ['warm query'], tools: list }, watched);
      expect(warm.status).toBe('hybrid');
      expect(timeout).not.toHaveBeenCalled();
      expect(reads).toBe(0);
      // A new query is embedded under its own bound (a timer), not the search's signal: the call may
      // outlive the search, so that its vector is kept for the next one.
      const newQuery = await semantic.vectors('p1', { query: ['a query never embedded'], tools: list }, watched);
      expect(newQuery.status).toBe('hybrid');
      expect(timeout).toHaveBeenCalled();
      expect(reads).toBe(0);
    } finally {
      timeout.mockRestore();
    }
  });

  it.each([
    [{ kind: 'error', status: 500 } as const, 'upstream_error'],
    [{ kind: 'error', status: 429 } as const, 'rate_limited'],
    [{ kind: 'hang' } as const, 'timeout'],
    [{ kind: 'nan' } as const, 'invalid_response'],
    [{ kind: 'fewer' } as const, 'invalid_response'],
  ])('endpoint fault %o → meta.semantic %s, no vectors used', async (behaviour, status) => {
    server.setEmbeddings(behaviour);
    const result = await stage().vectors(
      'p1',
      { query: ['anything at all'], tools: tools('gamma', 3) },
      startDeadline(600),
    );
    expect(result.status).toBe(status);
    expect(result.queries).toBeUndefined();
  });

  it('a tool batch that fails names the failure while the query vector is cached', async () => {
    const semantic = stage();
    await semantic.vectors('p1', { query: ['cached query'], tools: [] }, startDeadline(4000));
    server.setEmbeddings({ kind: 'error', status: 500 });
    const result = await semantic.vectors(
      'p1',
      { query: ['cached query'], tools: tools('delta', 3) },
      startDeadline(2000),
    );
    expect(result.status).toBe('upstream_error');
    expect(result.queries).toHaveLength(1);
  });

  it('vectors are scoped to the project: another project sending the same list embeds it itself', async () => {
    const semantic = stage({ waitShare: 0.1 });
    const list = tools('epsilon', 16);
    expect((await semantic.vectors('project-a', { query: ['q'], tools: list }, startDeadline(4000))).status).toBe(
      'hybrid',
    );
    const before = server.embeddingRequests.length;
    server.setEmbeddings({ kind: 'vectors' }, 300);
    const other = await semantic.vectors('project-b', { query: ['q'], tools: list }, startDeadline(1000));
    expect(other.status).not.toBe('hybrid');
    await sleep(1500);
    const texts = server.embeddingRequests.slice(before).flatMap((request) => request.input);
    expect(texts.filter((text) => text.includes('epsilon'))).toHaveLength(16);
  });

  it('work queued per project is bounded', async () => {
    server.setEmbeddings({ kind: 'hang' });
    const semantic = stage({ maxQueuedPerProject: 10, waitShare: 0.05 });
    await semantic.vectors('p1', { query: ['q'], tools: tools('zeta', 200) }, startDeadline(400));
    await semantic.vectors('p1', { query: ['q'], tools: tools('eta', 200) }, startDeadline(400));
    expect(semantic.stats.queued).toBeLessThanOrEqual(10);
  });

  it('a search that stops waiting for a cold list leaves nothing behind while the endpoint hangs', async () => {
    const semantic = stage({ waitShare: 0.5 });
    await semantic.vectors('p1', { query: ['q'], tools: [] }, startDeadline(4000));
    server.setEmbeddings({ kind: 'hang' });
    const list = tools('theta', 100);
    for (let search = 0; search < 20; search += 1) {
      expect((await semantic.vectors('p1', { query: ['q'], tools: list }, startDeadline(100))).status).toBe('pending');
    }
    expect(semantic.stats.queued).toBeGreaterThan(0);
    expect(semantic.stats.waiting).toBe(0);
  });

  it("projects that fill the whole background queue leave room for another project's list", async () => {
    // Queues of 10 per project, 80 in all: nine projects fill it while the endpoint is slow (one batch of 8 in flight).
    const semantic = stage({ maxQueuedPerProject: 10, waitShare: 0.05 });
    await semantic.vectors('p1', { query: ['q'], tools: [] }, startDeadline(4000));
    server.setEmbeddings({ kind: 'vectors' }, 200);
    for (let project = 0; project < 9; project += 1) {
      await semantic.vectors(
        `flood-${project}`,
        { query: ['q'], tools: tools(`flood${project}`, 10) },
        startDeadline(200),
      );
    }
    const before = server.embeddingRequests.length;
    await semantic.vectors('quiet', { query: ['q'], tools: tools('iota', 4) }, startDeadline(200));
    // Round robin: the quiet project's texts go within the next ten batches (each 200 ms).
    const embeddedQuiet = () =>
      server.embeddingRequests.slice(before).some((request) => request.input.some((text) => text.includes('iota')));
    for (let wait = 0; wait < 80 && !embeddedQuiet(); wait += 1) await sleep(50);
    expect(embeddedQuiet()).toBe(true);
  });

  it('the vector cache stays inside its byte bound under a flood of distinct lists', async () => {
    const semantic = stage({ cacheBytes: 200_000, waitShare: 1 });
    for (let list = 0; list < 20; list += 1) {
      await semantic.vectors(
        `project-${list}`,
        { query: [`query ${list}`], tools: tools(`flood${list}`, 30) },
        startDeadline(4000),
      );
      expect(semantic.stats.bytes).toBeLessThanOrEqual(200_000);
    }
    expect(semantic.stats.bytes).toBeGreaterThan(100_000);
  });

  it('a list whose vectors the project cannot hold is embedded up to what it can hold, not again on every search', async () => {
    // A project's share holds about 54 of the test server's vectors (~550 bytes an entry); the list has 80.
    const memory = new MemoryBudget({ maxBytes: 60_000, projectShare: 0.5 });
    const semantic = stage({ memory, cacheBytes: 10_000_000, waitShare: 1 });
    const list = tools('kappa', 80);
    for (let search = 0; search < 2; search += 1)
      await semantic.vectors('big', { query: ['thing 1'], tools: list }, startDeadline(4000));
    const before = server.embeddingRequests.length;
    for (let search = 0; search < 3; search += 1) {
      const result = await semantic.vectors('big', { query: ['thing 1'], tools: list }, startDeadline(4000));
      expect(result.status).toBe('partial');
      expect(result.tools.toArray().filter((vector) => vector !== undefined).length).toBeGreaterThan(20);
    }
    const texts = server.embeddingRequests.slice(before).flatMap((request) => request.input);
    expect(texts.filter((text) => text.includes('kappa'))).toHaveLength(0);
    expect(memory.projectBytes('big')).toBeLessThanOrEqual(30_000);
  });

  it("vectors are entries of the memory budget: a flooding project cannot evict another project's", async () => {
    // Room for about 110 vectors of the test server's (64 dimensions, ~550 bytes an entry), 100 for
    // one project: the flood passes the whole budget, which trims the largest project first.
    const memory = new MemoryBudget({ maxBytes: 60_000, projectShare: 0.9 });
    const semantic = stage({ memory, cacheBytes: 10_000_000, waitShare: 1 });
    const quiet = tools('quiet', 20);
    expect((await semantic.vectors('quiet', { query: ['thing 1'], tools: quiet }, startDeadline(4000))).status).toBe(
      'hybrid',
    );
    for (let list = 0; list < 10; list += 1) {
      await semantic.vectors(
        'flood',
        { query: [`query ${list}`], tools: tools(`flood${list}`, 30) },
        startDeadline(4000),
      );
      expect(memory.usage().usedBytes).toBeLessThanOrEqual(60_000);
      expect(memory.projectBytes('flood')).toBeLessThanOrEqual(54_000);
    }
    expect(memory.usage().byCache.vectors).toBeGreaterThan(0);
    const before = server.embeddingRequests.length;
    // The quiet project's list is still whole: hybrid again with no tool embedded anew.
    const again = await semantic.vectors('quiet', { query: ['thing 1'], tools: quiet }, startDeadline(4000));
    expect(again.status).toBe('hybrid');
    const texts = server.embeddingRequests.slice(before).flatMap((request) => request.input);
    expect(texts.filter((text) => text.includes('quiet'))).toHaveLength(0);
  });
});

describe('semantic stage with the defaults: nothing on the request path waits for tool vectors', () => {
  const defaults = (options: Partial<VectorProviderOptions> = {}) =>
    stage({ waitShare: 0, queryWaitMs: undefined, ...options });
  const untilHybrid = async (semantic: VectorProvider, projectId: string, query: string[], list: ToolInfo[]) => {
    for (let attempt = 0; attempt < 100; attempt += 1) {
      const result = await semantic.vectors(projectId, { query, tools: list }, startDeadline(4000));
      if (result.status === 'hybrid') return result;
      await sleep(20);
    }
    throw new Error('the list never became hybrid');
  };

  it("a new list's first search is lexical at once (pending, no call for the request); its vectors come in the background", async () => {
    const semantic = defaults();
    server.setEmbeddings({ kind: 'vectors' }, 200);
    const before = server.embeddingRequests.length;
    const list = tools('lambda', 24);
    const started = performance.now();
    const first = await semantic.vectors('p1', { query: ['thing 3'], tools: list }, startDeadline(4000));
    // Far below the endpoint's 200 ms per call: the search queued the list and went on.
    expect(performance.now() - started).toBeLessThan(150);
    expect(first.status).toBe('pending');
    expect(first.queries).toBeUndefined();
    server.setEmbeddings({ kind: 'vectors' });
    const warm = await untilHybrid(semantic, 'p1', ['thing 3'], list);
    expect(warm.tools.toArray().every((vector) => vector !== undefined)).toBe(true);
    // Only tool texts and the request were embedded: the first search sent nothing for its request.
    const requestTexts = server.embeddingRequests
      .slice(before)
      .flatMap((request) => request.input)
      .filter((text) => text === 'thing 3');
    expect(requestTexts).toHaveLength(1);
  });

  it("a request whose vector misses its bound answers lexically ('timeout'); the vector, once made, serves the next search", async () => {
    const semantic = defaults({ queryWaitMs: 50 });
    const list = tools('mu', 6);
    await untilHybrid(semantic, 'p1', ['warm'], list);
    server.setEmbeddings({ kind: 'vectors' }, 400);
    const started = performance.now();
    const slow = await semantic.vectors('p1', { query: ['a request never seen'], tools: list }, startDeadline(4000));
    expect(slow.status).toBe('timeout');
    // The 50 ms bound, not the endpoint's 400 ms nor the 4 s deadline (generous for a busy machine).
    expect(performance.now() - started).toBeLessThan(350);
    await sleep(600);
    const calls = server.embeddingRequests.length;
    const next = await semantic.vectors('p1', { query: ['a request never seen'], tools: list }, startDeadline(4000));
    expect(next.status).toBe('hybrid');
    expect(server.embeddingRequests.length).toBe(calls);
  });

  it('a failing endpoint is skipped for a cool-down (unavailable, no calls), probed after it, and used again once it answers', async () => {
    const semantic = defaults({ breaker: { threshold: 3, coolDownMs: 400, maxCoolDownMs: 400 } });
    const list = tools('nu', 4);
    await untilHybrid(semantic, 'p1', ['warm'], list);
    server.setEmbeddings({ kind: 'error', status: 500 });
    const statuses: string[] = [];
    for (let search = 0; search < 3; search += 1)
      statuses.push(
        (await semantic.vectors('p1', { query: [`new ${search}`], tools: list }, startDeadline(4000))).status,
      );
    expect(statuses).toEqual(['upstream_error', 'upstream_error', 'upstream_error']);
    const calls = server.embeddingRequests.length;
    for (let search = 0; search < 5; search += 1) {
      expect(
        (await semantic.vectors('p1', { query: [`skipped ${search}`], tools: list }, startDeadline(4000))).status,
      ).toBe('unavailable');
    }
    expect(server.embeddingRequests.length).toBe(calls);
    // Cached vectors still serve while it is skipped.
    expect((await semantic.vectors('p1', { query: ['warm'], tools: list }, startDeadline(4000))).status).toBe('hybrid');
    server.setEmbeddings({ kind: 'vectors' });
    await sleep(450);
    expect(
      (await semantic.vectors('p1', { query: ['after the cool-down'], tools: list }, startDeadline(4000))).status,
    ).toBe('hybrid');
    expect((await semantic.vectors('p1', { query: ['and after that'], tools: list }, startDeadline(4000))).status).toBe(
      'hybrid',
    );
  });

  it('a hanging endpoint costs each search at most its bound, then nothing once skipped', async () => {
    const semantic = defaults({
      queryWaitMs: 40,
      breaker: { threshold: 3, coolDownMs: 60_000, maxCoolDownMs: 60_000 },
    });
    const list = tools('xi', 4);
    await untilHybrid(semantic, 'p1', ['warm'], list);
    server.setEmbeddings({ kind: 'hang' });
    const statuses: string[] = [];
    for (let search = 0; search < 8; search += 1) {
      const started = performance.now();
      statuses.push(
        (await semantic.vectors('p1', { query: [`hung ${search}`], tools: list }, startDeadline(4000))).status,
      );
      expect(performance.now() - started).toBeLessThan(1000);
    }
    expect(statuses.slice(0, 3)).toEqual(['timeout', 'timeout', 'timeout']);
    expect(statuses.slice(3)).toEqual(Array(5).fill('unavailable'));
  });

  it('closing drops the background queue with one log line', async () => {
    const lines: Array<{ level: string; obj: unknown; msg?: string }> = [];
    const log = {
      warn: (obj: unknown, msg?: string) => lines.push({ level: 'warn', obj, ...(msg ? { msg } : {}) }),
      info: (obj: unknown, msg?: string) => lines.push({ level: 'info', obj, ...(msg ? { msg } : {}) }),
    };
    const semantic = defaults({ log: log as never });
    server.setEmbeddings({ kind: 'hang' });
    await semantic.vectors('p1', { query: ['q'], tools: tools('omicron', 300) }, startDeadline(4000));
    expect(semantic.stats.queued).toBeGreaterThan(200);
    await semantic.close();
    await sleep(50);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'info', msg: 'background embedding stopped; queued tool texts dropped' });
    expect((lines[0]!.obj as { dropped: number }).dropped).toBeGreaterThan(200);
    expect(semantic.stats.queued).toBe(0);
  });
});

describe('semantic stage: a list sent in full again', () => {
  it("keeps the list's keys by its tool-set id, in the project's budget, so a resent list is not keyed again", async () => {
    const memory = new MemoryBudget({ maxBytes: 64 * 1024 * 1024, projectShare: 0.25 });
    const semantic = stage({ memory, waitShare: 1 });
    const list = tools('rho', 50);
    // Every search of a list sent in full reads a new array, as a parsed body is; reads of a tool's
    // description (which its embedded text needs) are counted.
    let descriptionReads = 0;
    const resend = () =>
      (JSON.parse(JSON.stringify(list)) as ToolInfo[]).map((tool) => {
        const { description } = tool;
        return Object.defineProperty(tool, 'description', {
          enumerable: true,
          get: () => ((descriptionReads += 1), description),
        });
      });
    const first = await semantic.vectors('p1', { query: ['thing 7'], tools: resend() }, startDeadline(4000), {
      listId: 'list-id-rho',
    });
    expect(first.status).toBe('hybrid');
    const keyBytes = memory.usage().byCache['list-keys'] ?? 0;
    expect(keyBytes).toBeGreaterThan(50 * 100);
    expect(memory.projectBytes('p1')).toBeGreaterThanOrEqual(keyBytes);
    // The same id with another list's tools (a stale entry) is not used: its length differs, so it is keyed anew.
    const other = await semantic.vectors('p1', { query: ['thing 7'], tools: tools('sigma', 20) }, startDeadline(4000), {
      listId: 'list-id-rho',
    });
    expect(other.tools).toHaveLength(20);
    // Keyed anew once more (the entry held the 20 tools), then a resend is not keyed at all.
    await semantic.vectors('p1', { query: ['thing 7'], tools: resend() }, startDeadline(4000), {
      listId: 'list-id-rho',
    });
    descriptionReads = 0;
    const again = await semantic.vectors('p1', { query: ['thing 7'], tools: resend() }, startDeadline(4000), {
      listId: 'list-id-rho',
    });
    expect(again.status).toBe('hybrid');
    expect(descriptionReads).toBe(0);
    expect(again.tools.toArray().map((vector) => [...vector!.slice(0, 4)])).toEqual(
      first.tools.toArray().map((vector) => [...vector!.slice(0, 4)]),
    );
  });
});

describe("semantic stage: a list's matrix (searched by its tool-set id)", () => {
  const search = (semantic: VectorProvider, list: ToolInfo[], listId: string, projectId = 'p1') =>
    semantic.vectors(projectId, { query: ['thing 3'], tools: list }, startDeadline(4000), { listId });

  it('holds the vectors of a list searched by id in the memory budget, and they are the cached ones', async () => {
    const memory = new MemoryBudget({ maxBytes: 64 * 1024 * 1024, projectShare: 0.25 });
    const semantic = stage({ memory, waitShare: 1 });
    const list = tools('nu', 40);
    // The first search learns the vector length (an endpoint's is unknown until it answers).
    expect((await search(semantic, list, 'list-nu')).status).toBe('hybrid');
    const second = await search(semantic, list, 'list-nu');
    expect(second.status).toBe('hybrid');
    const matrixBytes = memory.usage().byCache['list-vectors'] ?? 0;
    // 40 rows of the test server's 64 numbers.
    expect(matrixBytes).toBeGreaterThanOrEqual(40 * 64 * 4);
    // The same vectors as a search that names no list (looked up tool by tool).
    const byTool = await semantic.vectors('p1', { query: ['thing 3'], tools: list }, startDeadline(4000));
    expect(second.tools.toArray()).toEqual(byTool.tools.toArray());
    expect(second.tools.ready).toBe(40);
  });

  it('a vector that arrives after the matrix was made is used by the next search', async () => {
    const semantic = stage({ waitShare: 0, queryWaitMs: undefined });
    // Learn the vector length first, so the list's first search makes its matrix with no row filled.
    await semantic.vectors('p1', { query: ['thing 3'], tools: [] }, startDeadline(4000));
    const list = tools('xi', 12);
    const first = await search(semantic, list, 'list-xi');
    expect(first.status).toBe('pending');
    expect(first.tools.ready).toBe(0);
    let last = first;
    for (let attempt = 0; attempt < 100 && last.status !== 'hybrid'; attempt += 1) {
      await sleep(20);
      last = await search(semantic, list, 'list-xi');
    }
    expect(last.status).toBe('hybrid');
    expect(last.tools.ready).toBe(12);
    expect(last.tools.toArray().every((vector) => vector?.length === 64)).toBe(true);
  });

  it('is bounded: a list whose matrix would take over a quarter of what a project keeps of vectors gets none, and ranks as before', async () => {
    const memory = new MemoryBudget({ maxBytes: 64 * 1024 * 1024, projectShare: 0.25 });
    // 400 KB of vectors per project, 512 numbers each (as the embedded encoder's): a matrix of up to
    // 100 KB, 48 rows (30 rows: 61 KB; 70 rows: 143 KB), while the project keeps vectors for 85 tools of a list.
    server.setEmbeddings({
      kind: 'vectors',
      vector: (text) => Array.from({ length: 512 }, (_, i) => ((text.length * 31 + i * 17) % 101) - 50),
    });
    const semantic = stage({ memory, cacheBytes: 400_000, waitShare: 1 });
    const small = tools('omicron', 30);
    const large = tools('pi', 70);
    await search(semantic, small, 'list-small');
    expect((await search(semantic, small, 'list-small')).status).toBe('hybrid');
    const smallBytes = memory.usage().byCache['list-vectors'] ?? 0;
    expect(smallBytes).toBeGreaterThan(30 * 512 * 4);
    await search(semantic, large, 'list-large');
    expect((await search(semantic, large, 'list-large')).status).toBe('hybrid');
    // No matrix for the large list; the small list's stays.
    expect(memory.usage().byCache['list-vectors']).toBe(smallBytes);
    const again = await search(semantic, large, 'list-large');
    expect(again.tools.ready).toBe(70);
  });

  it('a matrix the budget evicts is made again on the next search', async () => {
    const memory = new MemoryBudget({ maxBytes: 64 * 1024 * 1024, projectShare: 0.25 });
    const semantic = stage({ memory, waitShare: 1 });
    const list = tools('tau', 30);
    await search(semantic, list, 'list-tau');
    await search(semantic, list, 'list-tau');
    expect(memory.usage().byCache['list-vectors'] ?? 0).toBeGreaterThan(0);
    // The project's other entries push its oldest out, as its share fills: the list's vectors (which a
    // search of the matrix no longer reads), then the matrix.
    const filler = memory.cache<string>('filler', { sizeOf: (value) => value.length });
    for (let i = 0; (memory.usage().byCache['list-vectors'] ?? 0) > 0; i += 1) {
      expect(i).toBeLessThan(2000);
      filler.set('p1', `f${i}`, 'x'.repeat(64 * 1024));
    }
    const again = await search(semantic, list, 'list-tau');
    expect(again.status).toBe('hybrid');
    expect(again.tools.ready).toBe(30);
    expect(memory.usage().byCache['list-vectors'] ?? 0).toBeGreaterThan(0);
  });
});
