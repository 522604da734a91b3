// A list sent again byte for byte is recognised by its bytes, not parsed (src/tool-sets/resent-body.ts):
// the parser against a real store, then the service over HTTP, where every body must be answered as
// a project that never sent the list is answered.
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readToolList, type SearchResponse } from '@catalog-search/core';
import { MemoryBudget } from '../../src/memory/exports.js';
import { resentList } from '../../src/tool-sets/request-tools.js';
import { resentBody } from '../../src/tool-sets/resent-body.js';
import { ToolSetStore } from '../../src/tool-sets/tool-set-store.js';
import { startApp, testConfig, type RunningApp } from '../helpers/app.js';
import { searchAs } from '../helpers/search.js';
import { manyTools } from '../fixtures/tools.js';

const tools = manyTools(300);
const body = (query: string, list: unknown = tools) => JSON.stringify({ query: [query], tools: list, maxResults: 5 });

describe('resentBody', () => {
  const newStore = () =>
    new ToolSetStore({
      ttlMs: 60_000,
      cacheBytes: 64 * 1024 * 1024,
      maxSharedBytes: 8 * 1024 * 1024,
      memory: new MemoryBudget({ maxBytes: 64 * 1024 * 1024, projectShare: 0.5 }),
    });
  /** Fastify's JSON parser's contract, recording what it was given. */
  const parser = () => {
    const parsed: number[] = [];
    const parse = (_request: unknown, bytes: string | Buffer, done: (error: Error | null, value?: unknown) => void) => {
      parsed.push(bytes.length);
      done(null, JSON.parse(bytes.toString()));
    };
    return { parse, parsed };
  };
  /** A search's reading of its body as the service does it: parser, then resentList, else a full read and register. */
  function send(store: ToolSetStore, projectId: string, text: string, parse = parser().parse) {
    const request: { projectId: string; sentToolsBytes: Uint8Array | undefined } = {
      projectId,
      sentToolsBytes: undefined,
    };
    const bytes = Buffer.from(text);
    let parsed = resentBody(request, bytes, store, parse);
    const fast = parsed !== undefined;
    parsed ??= JSON.parse(text) as Record<string, unknown>;
    const resent = resentList(parsed.tools, projectId, store, request.sentToolsBytes);
    const reading = readToolList({ tools: parsed.tools });
    if (!reading.ok) throw new Error('a malformed list');
    const list = resent?.list.tools ?? reading.list.tools;
    store.register(projectId, list);
    return { fast, list, body: parsed };
  }

  it('parses only the rest of a body whose tools are the bytes the held list was sent as, from its second send on', () => {
    const store = newStore();
    expect(send(store, 'p', body('first')).fast).toBe(false);
    // The second send is read, found to be the held list, and its bytes noted.
    const second = send(store, 'p', body('second'));
    expect(second.fast).toBe(false);
    const { parse, parsed } = parser();
    const request = { projectId: 'p', sentToolsBytes: undefined };
    const third = resentBody(request, Buffer.from(body('third query')), store, parse)!;
    expect(third.tools).toBe(second.list);
    expect(third).toEqual({ query: ['third query'], tools: second.list, maxResults: 5 });
    // One parse, of the rest: ~50 bytes of a 90 KB body.
    expect(parsed).toHaveLength(1);
    expect(parsed[0]).toBeLessThan(100);
  });

  it('parses whole a changed list, another project, and the list in another spelling', () => {
    const store = newStore();
    send(store, 'p', body('a'));
    send(store, 'p', body('a'));
    const changed = tools.map((tool, index) =>
      index === 150 ? { ...tool, description: `${tool.description}!` } : tool,
    );
    expect(
      resentBody({ projectId: 'p', sentToolsBytes: undefined }, Buffer.from(body('b', changed)), store, parser().parse),
    ).toBeUndefined();
    expect(
      resentBody({ projectId: 'q', sentToolsBytes: undefined }, Buffer.from(body('b')), store, parser().parse),
    ).toBeUndefined();
    const spaced = JSON.stringify({ query: ['b'], tools }, null, 2);
    expect(
      resentBody({ projectId: 'p', sentToolsBytes: undefined }, Buffer.from(spaced), store, parser().parse),
    ).toBeUndefined();
  });

  it('notes nothing for a list whose reading changes it (a skipped tool), so it is always read', () => {
    const store = newStore();
    const withBadTool = [...tools, { description: 'no name' }];
    send(store, 'p', body('a', withBadTool));
    send(store, 'p', body('a', withBadTool));
    expect(send(store, 'p', body('a', withBadTool)).fast).toBe(false);
    expect(store.latestSent('p')?.sentAs).toBeUndefined();
  });

  it('keeps the noted bytes while the same list is sent again, and forgets them with a new list', () => {
    const store = newStore();
    send(store, 'p', body('a'));
    send(store, 'p', body('a'));
    expect(send(store, 'p', body('b')).fast).toBe(true);
    expect(send(store, 'p', body('c')).fast).toBe(true);
    send(store, 'p', body('d', tools.slice(1)));
    expect(store.latestSent('p')?.sentAs).toBeUndefined();
    expect(send(store, 'p', body('e')).fast).toBe(false);
  });
});

describe('a list sent again byte for byte, over HTTP', () => {
  let server: RunningApp;
  beforeAll(async () => {
    server = await startApp(testConfig());
  });
  afterAll(() => server.close());

  /** What a body's answer says, without its timings. */
  const answerOf = async (text: string | Uint8Array, projectId: string, headers: Record<string, string> = {}) => {
    const { status, body: answer } = await searchAs<SearchResponse & { detail?: string; errors?: unknown }>(
      server,
      text,
      {
        projectId,
        headers,
      },
    );
    return status === 200
      ? { status, results: answer.results, toolSet: answer.meta.toolSet, skipped: answer.meta.skipped }
      : { status, detail: answer.detail, errors: answer.errors };
  };

  const held = body('create an issue in the repository');
  const heldTools = JSON.stringify(tools);
  /** Bodies whose `tools` are the held bytes, and bodies that only look so. */
  const bodies: Record<string, string | Uint8Array> = {
    'the same body': held,
    'another query': body('send a message to the channel'),
    'keys in another order, spaces around': ` { "maxResults" : 3 , "tools" :${heldTools} ,\n"query":["list files"] } `,
    'a second tools key after it': held.replace(/}$/, ',"tools":[]}'),
    'an escaped tools key after it': held.replace(/}$/, ',"to\\u006fls":[]}'),
    'tools inside another value too': held.replace(/}$/, ',"context":{"tools":[]}}'),
    'a __proto__ key beside it': held.replace(/}$/, ',"__proto__":{"x":1}}'),
    'malformed after it': held.replace(/}$/, ',}'),
    'an unknown field beside it': held.replace(/}$/, ',"extra":1}'),
    'a query too long': body('x'.repeat(100_000)),
    'the held bytes with one more tool': body('a', [...tools, { name: 'added_tool', description: 'added' }]),
    'the list as servers': JSON.stringify({ query: ['x'], servers: [{ serverName: 's', tools }] }),
    gzipped: gzipSync(held),
  };

  it('answers every body as a project that never sent the list is answered', async () => {
    let project = 0;
    for (const [name, text] of Object.entries(bodies)) {
      const headers: Record<string, string> = text instanceof Uint8Array ? { 'content-encoding': 'gzip' } : {};
      // A project whose held list has its bytes noted (sent twice), and one that never sent it.
      const sender = `resent-${(project += 1)}`;
      for (let round = 0; round < 2; round += 1) expect((await answerOf(held, sender)).status).toBe(200);
      const expected = await answerOf(text, `fresh-${project}`, headers);
      expect(await answerOf(text, sender, headers), name).toEqual(expected);
    }
  });

  it('answers the same list sent again ten times as the first time, with its id', async () => {
    const first = await answerOf(held, 'ten');
    for (let round = 0; round < 10; round += 1) expect(await answerOf(held, 'ten')).toEqual(first);
    expect(first.results?.length).toBeGreaterThan(0);
    expect(first.toolSet).toMatch(/^[\w-]{43}$/);
  });
});
