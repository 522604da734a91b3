// A list sent in full again is searched as the array the store holds (sentList), so the rank cache and
// the semantic stage find their work for it by the array, as for a search by reference. A body whose
// tools are, as parsed, the list this project sent last is not read again at all (resentList): a yes
// must always mean that reading the body's tools would have given the held tools, with nothing
// skipped, or a search would rank another list than it was sent.
import { canonicalToolSet, MAX_NAME_CHARS, readToolList, type ToolInfo, type ToolList } from '@catalog-search/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryBudget } from '../../src/memory/exports.js';
import { registeredList, resentList, sentList } from '../../src/tool-sets/request-tools.js';
import { ToolSetStore } from '../../src/tool-sets/tool-set-store.js';
import { sampleTools } from '../fixtures/tools.js';

const store = (cacheBytes = 64 * 1024 * 1024) =>
  new ToolSetStore({
    ttlMs: 60_000,
    cacheBytes,
    maxSharedBytes: 0,
    memory: new MemoryBudget({ maxBytes: 64 * 1024 * 1024, projectShare: 1 }),
  });

/** A body's list as the route reads it: parsed anew each time. */
function read(tools: unknown[]): ToolList {
  const reading = readToolList({ tools: JSON.parse(JSON.stringify(tools)) });
  if (!reading.ok) throw new Error('unreadable list');
  return reading.list;
}

describe('sentList', () => {
  it("gives the held array for the list this project sent last, and this request's skipped tools", () => {
    const tools = store();
    const first = sentList(read(sampleTools), 'p', tools)!;
    const { toolSet } = registeredList(first.list, 'p', tools);
    // The same list again, now with an unusable tool among it: the held array, this request's skips.
    const again = sentList(read([...sampleTools, { description: 'no name' }]), 'p', tools)!;
    expect(again.list.tools).toBe(first.list.tools);
    expect(again.list.skippedCount).toBe(1);
    expect(again.byReference).toBe(false);
    expect(registeredList(again.list, 'p', tools).toolSet).toBe(toolSet);
  });

  it("gives a new array for a changed list, another project's list, or with no store", () => {
    const tools = store();
    const first = sentList(read(sampleTools), 'p', tools)!;
    registeredList(first.list, 'p', tools);
    const changed = read(sampleTools.map((tool, index) => (index === 1 ? { ...tool, description: 'changed' } : tool)));
    expect(sentList(changed, 'p', tools)!.list.tools).toBe(changed.tools);
    const other = read(sampleTools);
    expect(sentList(other, 'q', tools)!.list.tools).toBe(other.tools);
    const none = store(0);
    registeredList(read(sampleTools), 'p', none);
    const unheld = read(sampleTools);
    expect(sentList(unheld, 'p', none)!.list.tools).toBe(unheld.tools);
    expect(sentList(undefined, 'p', tools)).toBeUndefined();
  });
});

/** As the route does with a body's list: read it, search the held array if it is the last one, keep it. */
function send(tools: unknown[], projectId: string, toolSets: ToolSetStore) {
  const resent = resentList(tools, projectId, toolSets);
  if (resent) return resent;
  const reading = readToolList({ tools });
  if (!reading.ok) throw new Error('unreadable list');
  const sent = sentList(reading.list, projectId, toolSets)!;
  registeredList(sent.list, projectId, toolSets);
  return sent;
}

const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** Fields the reading leaves out, as third-party servers send them (empty, null, unknown). */
const LEFT_OUT: Array<[string, unknown]> = [
  ['description', ''],
  ['title', null],
  ['inputSchema', {}],
  ['annotations', []],
  ['tags', ['']],
  ['outputSchema', { type: 'object' }],
  ['_meta', null],
];

/** The held tools with fields the reading leaves out added where a tool lacks them. */
const withLeftOutFields = (tools: readonly object[], at: number): object[] =>
  tools.map((tool, index) => {
    const [key, value] = LEFT_OUT[(at + index) % LEFT_OUT.length]!;
    return key in tool ? tool : { ...tool, [key]: value };
  });

/**
 * A held tool as an MCP router may send it: the MCP `name` for `toolName`, no `toolKey` where the key is
 * the one worked out from the server and the name, no `serverName` where it is empty.
 */
function asMcpTool(tool: ToolInfo): object {
  const { toolKey, toolName, serverName, ...rest } = tool;
  const workedOut = serverName === '' ? toolName : `${serverName}:${toolName}`;
  return {
    name: toolName,
    ...(serverName === '' ? {} : { serverName }),
    ...(toolKey === workedOut ? {} : { toolKey }),
    ...rest,
  };
}

/** The held tools sent again with one change to one tool, as a router's next list may differ. */
function withOneChange(tools: readonly object[], at: number, value: unknown): object[] {
  return tools.map((tool, index) => {
    if (index !== at % tools.length) return { ...tool };
    const entries = Object.entries(tool);
    const [key] = entries[at % entries.length]!;
    switch (at % 5) {
      case 0:
        return { ...tool, [key]: value }; // a field's value
      case 1:
        return Object.fromEntries(entries.filter(([name]) => name !== key)); // a field fewer
      case 2:
        return { ...tool, extra: value }; // a field the reading does not know
      case 3: {
        // A field the reading knows and keeps, which the tool had not.
        const kept: Record<string, unknown> = {
          description: 'd',
          title: 't',
          inputSchema: { value },
          annotations: { value },
          tags: ['t'],
        };
        const lacking = Object.keys(kept).filter((name) => !(name in tool));
        const added = lacking[Math.floor(at / 5) % lacking.length];
        return added === undefined ? { ...tool, [key]: value } : { ...tool, [added]: kept[added] };
      }
      default: {
        const schema = (tool as { inputSchema?: object }).inputSchema; // a schema's keys in another order
        return schema
          ? { ...tool, inputSchema: Object.fromEntries(Object.entries(schema).reverse()) }
          : { ...tool, [key]: null };
      }
    }
  });
}

/** A tool's fields in another order (the reading builds its own order, so this is the same tool). */
const reordered = (tool: object) => Object.fromEntries(Object.entries(tool).reverse());

// Tools as third-party servers send them: usable or not, fields empty, null or of the wrong type, MCP
// `name` for `toolName`, schemas of any shape.
const text = fc.oneof(fc.constantFrom('', 'a', 'b', 'a:b', 'search'), fc.string({ maxLength: 6 }));
const field = fc.oneof(
  text,
  fc.constant(null),
  fc.integer(),
  fc.jsonValue({ maxDepth: 2 }),
  fc.array(text, { maxLength: 2 }),
);
const rawTool = fc.record(
  {
    toolKey: field,
    toolName: field,
    name: field,
    serverName: field,
    description: field,
    title: field,
    inputSchema: fc.oneof(fc.constant({}), fc.jsonValue({ maxDepth: 3 })),
    annotations: fc.jsonValue({ maxDepth: 2 }),
    tags: fc.oneof(fc.array(fc.oneof(text, fc.constant(null)), { maxLength: 3 }), field),
  },
  { requiredKeys: [] },
);

describe('resentList', () => {
  it('gives the held array for the same list sent again, its fields in any order', () => {
    const toolSets = store();
    const first = send(copy(sampleTools), 'p', toolSets);
    const again = resentList(copy(sampleTools).map(reordered), 'p', toolSets);
    expect(again?.list.tools).toBe(first.list.tools);
    expect(again?.list.skippedCount).toBe(0);
    expect(again?.byReference).toBe(false);
  });

  it('gives the held array for MCP tools sent as they are, with keys and server names worked out', () => {
    const toolSets = store();
    const mcp = [
      { name: 'create_event', serverName: 'calendar', description: 'Create an event', inputSchema: { type: 'object' } },
      { name: 'ping', serverName: null, annotations: { readOnlyHint: true } },
      { toolName: 'search', toolKey: 'web:search', serverName: 'web' },
    ];
    const first = send(copy(mcp), 'p', toolSets);
    expect(first.list.tools.map((tool) => tool.toolKey)).toEqual(['calendar:create_event', 'ping', 'web:search']);
    expect(resentList(copy(mcp), 'p', toolSets)?.list.tools).toBe(first.list.tools);
    // A worked-out key sent as another key, or a server name that changes the worked-out key: read again.
    expect(resentList([{ ...mcp[0], toolKey: 'other' }, mcp[1], mcp[2]], 'p', toolSets)).toBeUndefined();
    expect(resentList([mcp[0], { ...mcp[1], serverName: 'x' }, mcp[2]], 'p', toolSets)).toBeUndefined();
  });

  it('gives the held array when the tools carry fields the reading leaves out', () => {
    const toolSets = store();
    const first = send(copy(sampleTools), 'p', toolSets);
    const again = copy(sampleTools).map((tool) => ({
      ...tool,
      title: null,
      annotations: {},
      outputSchema: {},
      tags: [],
    }));
    expect(resentList(again, 'p', toolSets)?.list.tools).toBe(first.list.tools);
  });

  it('reads a list that differs in any way, another project’s list, and any list without a store', () => {
    const toolSets = store();
    send(copy(sampleTools), 'p', toolSets);
    const schema = { type: 'object', properties: { q: { type: 'string' } } };
    const variants: unknown[][] = [
      copy(sampleTools).slice(1),
      [...copy(sampleTools), { toolName: 'extra' }],
      copy(sampleTools).map((tool, index) => (index === 2 ? { ...tool, description: `${tool.description}!` } : tool)),
      // Nested objects keep their key order in the tool-set id: another order is another list.
      copy(sampleTools).map((tool, index) =>
        index === 0
          ? { ...tool, inputSchema: Object.fromEntries(Object.entries(tool.inputSchema ?? schema).reverse()) }
          : tool,
      ),
      // A title longer than a name may be is left out: the held tool has none, and the reading is needed.
      copy(sampleTools).map((tool, index) => (index === 0 ? { ...tool, title: 'long '.repeat(MAX_NAME_CHARS) } : tool)),
      // Without its key a tool gets one worked out from its server name and name: here not the held key.
      copy(sampleTools).map((tool, index) => (index === 0 ? { ...tool, toolKey: undefined } : tool)),
    ];
    for (const variant of variants) expect(resentList(variant, 'p', toolSets)).toBeUndefined();
    expect(resentList(copy(sampleTools), 'q', toolSets)).toBeUndefined();
    expect(resentList({ tools: sampleTools }, 'p', toolSets)).toBeUndefined();
    const none = store(0);
    send(copy(sampleTools), 'p', none);
    expect(resentList(copy(sampleTools), 'p', none)).toBeUndefined();
  });

  it('says yes only when reading the list would give the held tools (random lists and changed copies)', () => {
    fc.assert(
      fc.property(
        fc.array(rawTool, { minLength: 1, maxLength: 6 }),
        fc.array(rawTool, { maxLength: 6 }),
        fc.nat(),
        field,
        (sent, other, how, value) => {
          const toolSets = store();
          const first = send(copy(sent), 'p', toolSets);
          const held = first.list.tools;
          // What a router might send next: the held tools themselves, their fields in another order or
          // with fields the reading leaves out (always recognised when they are the whole list), the first
          // body again, the held tools with one change, or another list.
          const next = [
            copy(held).map(reordered),
            withLeftOutFields(copy(held), how),
            copy(held).map(asMcpTool),
            copy(sent),
            withOneChange(copy(held), Math.floor(how / 6), value),
            copy(other),
          ][how % 6]!;
          const resent = resentList(next, 'p', toolSets);
          if (how % 6 < 3) expect(resent?.list.tools).toBe(held);
          if (resent === undefined) return;
          const reading = readToolList({ tools: copy(next) });
          expect(reading.ok && reading.list.skippedCount).toBe(0);
          if (reading.ok) expect(canonicalToolSet(reading.list.tools)).toBe(canonicalToolSet(held));
        },
      ),
      { numRuns: 2_500 },
    );
  });
});
