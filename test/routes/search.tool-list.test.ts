import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, testConfig, type RunningApp } from '../helpers/app.js';
import { searchAs } from '../helpers/search.js';
import { sampleTools } from '../fixtures/tools.js';

// The request a real router sends: tool lists as third-party servers return them. One unusable
// tool never fails the search; it is skipped and named in meta.skipped.

let server: RunningApp;
let short: RunningApp;
beforeAll(async () => {
  server = await startApp(testConfig());
  short = await startApp(testConfig({ search: { ...testConfig().search, maxQueryChars: 100 } }));
});
afterAll(async () => {
  await server.close();
  await short.close();
});

const post = (body: unknown, on: RunningApp = server) => searchAs(on, body);

const tools = [
  'github:create_issue',
  'github:list_issues',
  'filesystem:read_file',
  'filesystem:write_file',
  'slack:post_message',
].map((key) => sampleTools.find((tool) => tool.toolKey === key)!);
const query = ['read a file'];
const keys = (body: Record<string, any>) => (body.results as { toolKey: string }[]).map((result) => result.toolKey);

function nestedJson(levels: number): string {
  return '{"a":'.repeat(levels - 1) + '{}' + '}'.repeat(levels - 1);
}

describe('one bad tool never fails the search', () => {
  const cases: { name: string; tool: string; reason?: string }[] = [
    {
      name: 'an empty toolName',
      tool: '{"toolKey":"toolink:","toolName":"","serverName":"Toolink"}',
      reason: '/tools/5/toolName: must be a non-empty string',
    },
    { name: 'a tool that is not an object', tool: '"github:create_issue"', reason: '/tools/5: must be an object' },
    {
      name: 'a repeated toolKey',
      tool: JSON.stringify({ ...tools[2], description: 'again' }),
      reason: '/tools/5: repeats the toolKey of tool 2; the first is kept',
    },
    {
      name: 'annotations nested ~4,100 levels',
      tool: `{"toolKey":"x:read_file","toolName":"read_file","serverName":"X","annotations":${nestedJson(4100)}}`,
      reason: '/tools/5/annotations: nests deeper than 64 levels',
    },
    { name: 'description: null', tool: '{"toolKey":"x:t","toolName":"t","serverName":"X","description":null}' },
    { name: 'inputSchema: null', tool: '{"toolKey":"x:t","toolName":"t","serverName":"X","inputSchema":null}' },
    { name: 'inputSchema: []', tool: '{"toolKey":"x:t","toolName":"t","serverName":"X","inputSchema":[]}' },
    { name: 'annotations: null', tool: '{"toolKey":"x:t","toolName":"t","serverName":"X","annotations":null}' },
    { name: 'a non-string tag', tool: '{"toolKey":"x:t","toolName":"t","serverName":"X","tags":["files",3,null]}' },
    {
      name: 'a "__proto__" key in a tool',
      tool: '{"toolKey":"x:t","toolName":"t","serverName":"X","__proto__":{"polluted":1},"annotations":{"__proto__":{"polluted":1},"readOnlyHint":true}}',
    },
  ];
  for (const { name, tool, reason } of cases) {
    it(`${name}: 200, ${reason ? 'the tool skipped and named' : 'the field treated as absent'}`, async () => {
      const body = `{"query":["read a file"],"maxResults":10,"tools":[${tools.map((t) => JSON.stringify(t)).join(',')},${tool}]}`;
      const response = await post(body);
      expect(response.status).toBe(200);
      expect(keys(response.body)).toContain('filesystem:read_file');
      if (reason) {
        expect(response.body.meta.skippedCount).toBe(1);
        expect(response.body.meta.skipped).toEqual([expect.objectContaining({ index: 5, reason })]);
      } else {
        expect(response.body.meta.skipped).toBeUndefined();
      }
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });
  }

  it('a list whose tools are all unusable answers 200 with no results', async () => {
    const response = await post({ query, tools: [{ toolName: '' }, null, 7] });
    expect(response.status).toBe(200);
    expect(response.body.results).toEqual([]);
    expect(response.body.meta.skippedCount).toBe(3);
  });
});

describe('long tasks', () => {
  it('accepts a task of tens of thousands of characters (a pasted image) and ranks its words', async () => {
    const task = `read a file ${'iVBORw0KGgo'.repeat(2_000)}`;
    const response = await post({ query: [task], context: 'c'.repeat(50_000), tools });
    expect(response.status).toBe(200);
    expect(keys(response.body)[0]).toBe('filesystem:read_file');
  });

  it('counts characters as code points: 100 emoji fit MAX_QUERY_CHARS=100, 101 do not', async () => {
    expect((await post({ query: ['😀'.repeat(100)], tools }, short)).status).toBe(200);
    const refused = await post({ query: ['😀'.repeat(101)], tools }, short);
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([
      { field: '/query/0', message: 'must be at most 100 characters (MAX_QUERY_CHARS)' },
    ]);
  });
});

describe('the grouped MCP form', () => {
  it('answers as the same list sent as ToolInfo would be answered', async () => {
    const servers = [
      {
        serverId: 'filesystem',
        serverName: 'Filesystem',
        tools: [
          { name: 'read_file', description: 'Read the complete contents of a file.', inputSchema: { type: 'object' } },
          { name: 'write_file', description: 'Create or overwrite a file.', inputSchema: { type: 'object' } },
        ],
      },
      {
        serverId: 'github',
        tools: [
          { name: 'get_file_contents', description: 'Get a file from a repository.', inputSchema: { type: 'object' } },
        ],
      },
    ];
    const flat = servers.flatMap((server) =>
      server.tools.map((tool) => ({
        ...tool,
        name: undefined,
        toolKey: `${server.serverId}:${tool.name}`,
        toolName: tool.name,
        serverName: server.serverName ?? server.serverId,
      })),
    );
    const grouped = await post({ query, servers });
    const listed = await post({ query, tools: flat });
    expect(grouped.status).toBe(200);
    expect(grouped.body.results).toEqual(listed.body.results);
    expect(keys(grouped.body)).toContain('filesystem:read_file');
  });
});

describe('toolKey collisions of the servers form', () => {
  it('server a + tool b:c and server a:b + tool c: one kept, the other in meta.skipped naming both', async () => {
    const servers = [
      { serverId: 'a', tools: [{ name: 'b:c', description: 'Read a file.' }] },
      { serverId: 'a:b', tools: [{ name: 'c', description: 'Read a file too.' }] },
    ];
    const response = await post({ query: ['read a file'], servers });
    expect(response.status).toBe(200);
    expect(keys(response.body)).toEqual(['a:b:c']);
    expect(response.body.meta.skippedCount).toBe(1);
    expect(response.body.meta.skipped[0]).toEqual({
      index: 1,
      toolKey: 'a:b:c',
      reason: expect.stringMatching(
        /^\/servers\/1\/tools\/0: .*serverId "a:b" \+ name "c".* tool 0 \(\/servers\/0\/tools\/0: serverId "a" \+ name "b:c"\)/,
      ),
    });
  });
});

describe('filters, boosts and minRelevance', () => {
  const catalog = [
    {
      toolKey: 'fs:read_file',
      toolName: 'read_file',
      serverName: 'Filesystem',
      description: 'Read a file',
      annotations: { readOnlyHint: true },
      tags: ['files'],
    },
    {
      toolKey: 'fs:delete_file',
      toolName: 'delete_file',
      serverName: 'Filesystem',
      description: 'Delete a file',
      annotations: { destructiveHint: true },
    },
    {
      toolKey: 'gh:get_file',
      toolName: 'get_file',
      serverName: 'GitHub',
      description: 'Read a file from a repository',
      annotations: { readOnlyHint: true },
      tags: ['code', 'files'],
    },
    { toolKey: 'web:fetch', toolName: 'fetch', serverName: 'Web', description: 'Fetch a web page' },
  ];

  it.each<[string, Record<string, unknown>, string[]]>([
    ['servers', { servers: ['gh', 'Web'] }, ['gh:get_file']],
    ['excludeServers', { excludeServers: ['Filesystem'] }, ['gh:get_file']],
    ['tools rules', { tools: ['*_file', '!delete*'] }, ['fs:read_file', 'gh:get_file']],
    ['a /regex/', { tools: ['/^(read|get)_/'] }, ['fs:read_file', 'gh:get_file']],
    ['tags', { tags: ['code'] }, ['gh:get_file']],
    ['readOnly', { readOnly: true }, ['fs:read_file', 'gh:get_file']],
    ['excludeDestructive', { excludeDestructive: true }, ['fs:read_file', 'gh:get_file']],
  ])('filter.%s narrows the answer', async (_name, filter, expected) => {
    const response = await post({ query: ['read or delete a file'], tools: catalog, filter });
    expect(response.status).toBe(200);
    expect(keys(response.body).sort()).toEqual(expected.sort());
  });

  it('boost.tags raises a tagged tool and the explanation names the boost; minRelevance drops weak matches', async () => {
    const plain = await post({ query: ['read a file'], tools: catalog });
    const boosted = await post({ query: ['read a file'], tools: catalog, boost: { tags: ['code'] } });
    expect(keys(plain.body)[0]).toBe('fs:read_file');
    expect(keys(boosted.body)[0]).toBe('gh:get_file');
    expect(boosted.body.results[0].explanation).toMatch(/boosted \+0\.2 .*boost\.tags/);
    expect(boosted.body.results[0].relevance).toBeGreaterThan(
      plain.body.results.find((r: any) => r.toolKey === 'gh:get_file').relevance,
    );
    // minRelevance leaves out what is below it (a tool covering "read a file" in its name is near 1).
    const strict = await post({ query: ['read a file'], tools: catalog, minRelevance: 0.9 });
    expect(strict.body.results.length).toBeGreaterThan(0);
    expect(strict.body.results.length).toBeLessThan(plain.body.results.length);
    expect(strict.body.results.every((r: any) => r.relevance >= 0.9)).toBe(true);
    const none = await post({ query: ['read a file'], tools: catalog, minRelevance: 1.0 });
    expect(none.body.results.every((r: any) => r.relevance >= 1)).toBe(true);
  });

  it('a ReDoS rule is answered promptly', async () => {
    const long = 'a'.repeat(500);
    // 100 tools: a backtracking engine would not finish one of them in a lifetime, and RE2 takes ~0.2 s for
    // all of them on a busy 2-core machine, well within the worker's 2 s budget (1,000 tools took 0.3 s
    // quiet and 2.5 s busy: the test answered 400 "took over 500 ms" on a busy machine, 3 runs in 3).
    const many = Array.from({ length: 100 }, (_, i) => ({
      toolKey: `s${i}:${long}`,
      toolName: `${long}!`,
      serverName: 'S',
    }));
    const started = performance.now();
    const response = await post({
      query: ['a'],
      tools: many,
      filter: { tools: ['/^(a+)+$/', '*a*a*a*a*a*a*a*a*a*b'] },
    });
    expect(response.status).toBe(200);
    expect(response.body.results).toEqual([]);
    // Hang detection only (a backtracking engine would not answer this in a lifetime).
    expect(performance.now() - started).toBeLessThan(15_000);
  });
});
