import { describe, expect, it } from 'vitest';
import { countTools, MAX_NESTING_DEPTH, readToolList, type ToolList } from '../src/index.js';

const GOOD = {
  toolKey: 'github:create_issue',
  toolName: 'create_issue',
  serverName: 'GitHub',
  description: 'Create an issue',
};

function read(tools: unknown[]): ToolList {
  const reading = readToolList({ tools });
  if (!reading.ok) throw new Error(JSON.stringify(reading.problems));
  return reading.list;
}

function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: true };
  for (let i = 1; i < levels; i += 1) value = { next: value };
  return value;
}

describe('readToolList: each tool is checked on its own', () => {
  it.each<[string, unknown, string]>([
    ['an empty toolName (toolret_toolink)', { ...GOOD, toolName: '' }, '/tools/1/toolName: must be a non-empty string'],
    ['no toolName', { toolKey: 'a:b', serverName: 'A' }, '/tools/1/toolName: must be a non-empty string'],
    [
      'a toolName of the wrong type',
      { ...GOOD, toolKey: 'x:y', toolName: 42 },
      '/tools/1/toolName: must be a non-empty string',
    ],
    [
      'a serverName of the wrong type',
      { ...GOOD, toolKey: 'x:y', serverName: ['GitHub'] },
      '/tools/1/serverName: must be a string',
    ],
    [
      'a name past 512 characters',
      { ...GOOD, toolKey: 'x:y', toolName: 'n'.repeat(513) },
      '/tools/1/toolName: must be at most 512 characters',
    ],
    ['not an object', 'create_issue', '/tools/1: must be an object'],
    ['null', null, '/tools/1: must be an object'],
    [
      'annotations nested ~4,100 levels',
      { ...GOOD, toolKey: 'x:y', annotations: nested(4100) },
      `/tools/1/annotations: nests deeper than ${MAX_NESTING_DEPTH} levels`,
    ],
    [
      'an inputSchema nested too deep',
      { ...GOOD, toolKey: 'x:y', inputSchema: nested(MAX_NESTING_DEPTH + 1) },
      `/tools/1/inputSchema: nests deeper than ${MAX_NESTING_DEPTH} levels`,
    ],
    [
      'a repeated toolKey',
      { ...GOOD, description: 'second' },
      '/tools/1: repeats the toolKey of tool 0; the first is kept',
    ],
  ])('skips a tool with %s and names it', (_name, bad, reason) => {
    const list = read([GOOD, bad, { ...GOOD, toolKey: 'github:close_issue', toolName: 'close_issue' }]);
    expect(list.tools.map((tool) => tool.toolKey)).toEqual(['github:create_issue', 'github:close_issue']);
    expect(list.skippedCount).toBe(1);
    expect(list.skipped).toHaveLength(1);
    expect(list.skipped[0]).toMatchObject({ index: 1, reason });
  });

  it('names the skipped tool by its key when it has one', () => {
    const list = read([{ toolKey: 'toolink:', toolName: '', serverName: 'Toolink' }, { ...GOOD }, { ...GOOD }]);
    expect(list.skipped.map((entry) => entry.toolKey)).toEqual(['toolink:', 'github:create_issue']);
  });

  it.each<[string, Record<string, unknown>]>([
    ['description: null', { description: null }],
    ['description: ""', { description: '' }],
    ['description of the wrong type', { description: 7 }],
    ['inputSchema: null', { inputSchema: null }],
    ['inputSchema: []', { inputSchema: [] }],
    ['inputSchema: {}', { inputSchema: {} }],
    ['annotations: null', { annotations: null }],
    ['tags: null', { tags: null }],
    ['tags: []', { tags: [] }],
    ['title: null', { title: null }],
  ])('treats %s as absent', (_name, fields) => {
    const list = read([{ toolKey: 'k:t', toolName: 't', serverName: 'S', ...fields }]);
    expect(list.skippedCount).toBe(0);
    expect(list.tools).toEqual([{ toolKey: 'k:t', toolName: 't', serverName: 'S' }]);
  });

  it('drops tags that are not non-empty strings and keeps the rest', () => {
    const list = read([{ ...GOOD, tags: ['git', 3, null, '', { a: 1 }, 'issues'] }]);
    expect(list.tools[0]!.tags).toEqual(['git', 'issues']);
  });

  it('removes __proto__ and constructor.prototype keys instead of refusing the tool', () => {
    const tool = JSON.parse(
      '{"toolKey":"k:t","toolName":"t","serverName":"S","__proto__":{"polluted":1},' +
        '"annotations":{"readOnlyHint":true,"__proto__":{"x":1},"constructor":{"prototype":{"y":1}}}}',
    ) as unknown;
    const list = read([tool]);
    expect(list.tools).toEqual([
      { toolKey: 'k:t', toolName: 't', serverName: 'S', annotations: { readOnlyHint: true } },
    ]);
    expect(Object.hasOwn(list.tools[0]!.annotations!, '__proto__')).toBe(false);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('keeps only the ToolInfo fields, and takes an MCP tool object as it is (name, key serverName:name)', () => {
    const list = read([
      { name: 'send_email', description: 'Send an email', inputSchema: { type: 'object' }, _meta: { a: 1 } },
    ]);
    expect(list.tools).toEqual([
      {
        toolKey: 'send_email',
        toolName: 'send_email',
        serverName: '',
        description: 'Send an email',
        inputSchema: { type: 'object' },
      },
    ]);
    expect(read([{ name: 'send', serverName: 'Mail' }]).tools[0]!.toolKey).toBe('Mail:send');
  });

  it('answers an all-unusable list with no tools and every one named (the list is capped, the count is not)', () => {
    const list = read(Array.from({ length: 50 }, () => ({ toolName: '' })));
    expect(list.tools).toEqual([]);
    expect(list.skippedCount).toBe(50);
    expect(list.skipped).toHaveLength(20);
  });
});

describe('readToolList: the grouped MCP form', () => {
  it('keys each tool serverId:name and names the server', () => {
    const reading = readToolList({
      servers: [
        {
          serverId: 'github',
          serverName: 'GitHub',
          tools: [{ name: 'create_issue', inputSchema: { type: 'object' } }],
        },
        {
          serverId: 'mail',
          serverName: null,
          tools: [{ name: '' }, { name: 'send', title: 'Send', annotations: { readOnlyHint: false } }],
        },
      ],
    });
    expect(reading).toEqual({
      ok: true,
      list: {
        tools: [
          {
            toolKey: 'github:create_issue',
            toolName: 'create_issue',
            serverName: 'GitHub',
            inputSchema: { type: 'object' },
          },
          {
            toolKey: 'mail:send',
            toolName: 'send',
            serverName: 'mail',
            title: 'Send',
            annotations: { readOnlyHint: false },
          },
        ],
        skipped: [{ index: 1, reason: '/servers/1/tools/0/name: must be a non-empty string' }],
        skippedCount: 1,
      },
    });
  });

  it('reports two tools whose keys the servers form joins alike (a + b:c, a:b + c), naming both and how', () => {
    const reading = readToolList({
      servers: [
        { serverId: 'a', tools: [{ name: 'b:c' }] },
        { serverId: 'a:b', tools: [{ name: 'c' }, { name: 'c' }] },
      ],
    });
    expect(reading.ok && reading.list.tools.map((tool) => tool.toolKey)).toEqual(['a:b:c']);
    expect(reading.ok && reading.list.skipped).toEqual([
      {
        index: 1,
        toolKey: 'a:b:c',
        reason:
          '/servers/1/tools/0: its toolKey (serverId "a:b" + name "c") is also that of tool 0 (/servers/0/tools/0: serverId "a" + name "b:c"), ' +
          'as the servers form joins serverId and name with ":"; the first is kept',
      },
      // Compared with the kept tool (the first), which was made another way.
      {
        index: 2,
        toolKey: 'a:b:c',
        reason:
          '/servers/1/tools/1: its toolKey (serverId "a:b" + name "c") is also that of tool 0 (/servers/0/tools/0: serverId "a" + name "b:c"), as the servers form joins serverId and name with ":"; the first is kept',
      },
    ]);
    const repeated = readToolList({ servers: [{ serverId: 'a', tools: [{ name: 'x' }, { name: 'x' }] }] });
    expect(repeated.ok && repeated.list.skipped).toEqual([
      { index: 1, toolKey: 'a:x', reason: '/servers/0/tools/1: repeats the toolKey of tool 0; the first is kept' },
    ]);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['tools and servers both', { tools: [], servers: [] }, '/servers'],
    ['neither', {}, '/tools'],
    ['a server without serverId', { servers: [{ tools: [] }] }, '/servers/0/serverId'],
    ['a server whose tools are not a list', { servers: [{ serverId: 's', tools: {} }] }, '/servers/0/tools'],
    ['an unknown server field', { servers: [{ serverId: 's', tools: [], extra: 1 }] }, '/servers/0/extra'],
    // Each of its tools was skipped instead, naming /servers/0/tools/N/serverName, a field MCP tools do not have.
    [
      'a serverName over 512 characters',
      { servers: [{ serverId: 's', serverName: 'N'.repeat(513), tools: [{ name: 'a', inputSchema: {} }] }] },
      '/servers/0/serverName',
    ],
  ])('refuses %s as a request problem naming the field', (_name, body, field) => {
    const reading = readToolList(body);
    expect(reading.ok).toBe(false);
    if (!reading.ok) expect(reading.problems.map((problem) => problem.field)).toEqual([field]);
  });

  it('names the first 20 bad servers of a list, not all of them', () => {
    const reading = readToolList({
      servers: [{ serverId: 's', tools: [] }, ...Array.from({ length: 100_000 }, () => 1)],
    });
    expect(reading.ok).toBe(false);
    if (!reading.ok) {
      expect(reading.problems).toHaveLength(20);
      expect(reading.problems[0]).toEqual({ field: '/servers/1', message: 'must be an object' });
    }
  });

  it('counts the tools of either form for MAX_TOOLS', () => {
    expect(countTools({ tools: [1, 2, 3] })).toBe(3);
    expect(countTools({ servers: [{ tools: [1, 2] }, { tools: [3] }, null] })).toBe(3);
  });
});
