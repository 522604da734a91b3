// toolSet references in one service: ids, 409 TOOL_SET_UNKNOWN, request-shape errors, the tenant
// boundary and the byte bound of the in-process store.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolSetId, type SearchResponse } from '@catalog-search/core';
import { startApp, testConfig, type RunningApp } from '../helpers/app.js';
import { searchAs } from '../helpers/search.js';
import { manyTools, sampleRequest, sampleTools } from '../fixtures/tools.js';

let server: RunningApp;
beforeAll(async () => {
  server = await startApp(testConfig());
});
afterAll(() => server.close());

async function search(body: unknown, projectId?: string, target: RunningApp = server) {
  const answer = await searchAs<SearchResponse & Record<string, unknown>>(
    target,
    body,
    projectId === undefined ? {} : { projectId },
  );
  return { ...answer, type: answer.headers.get('content-type') };
}

describe('toolSet references', () => {
  it('answers a full list with its id, and a search by that id like the full list', async () => {
    const full = await search(sampleRequest);
    expect(full.body.meta.toolSet).toBe(await toolSetId(sampleTools));
    const byReference = await search({
      query: sampleRequest.query,
      maxResults: sampleRequest.maxResults,
      toolSet: full.body.meta.toolSet,
    });
    expect(byReference.status).toBe(200);
    expect(byReference.body.results).toEqual(full.body.results);
    expect(byReference.body.meta.toolSet).toBe(full.body.meta.toolSet);
  });

  it("computes the client's id (core, Web Crypto) for lists with non-ASCII text, nested schemas and annotations", async () => {
    const tools = manyTools(30).map((tool, index) => ({
      ...tool,
      description: `Ünïcödé ✓ 日本語 ${index} \u2028 "quoted"`,
      annotations: { readOnlyHint: index % 2 === 0 },
      tags: ['b', 'a'],
    }));
    const { body } = await search({ query: ['x'], tools });
    expect(body.meta.toolSet).toBe(await toolSetId(tools));
  });

  it('gives the same id whatever the key order of a tool and whatever unknown fields it carries', async () => {
    const reordered = sampleTools.map((tool) => ({
      extra: 'ignored',
      ...Object.fromEntries(Object.entries(tool).reverse()),
    }));
    const { body } = await search({ ...sampleRequest, tools: reordered });
    expect(body.meta.toolSet).toBe(await toolSetId(sampleTools));
    // Order of the tools is part of the list: another order is another id.
    expect(await toolSetId([...sampleTools].reverse())).not.toBe(body.meta.toolSet);
  });

  it('gives a grouped (servers) list the id of the same tools sent flat, and searches it by reference', async () => {
    const servers = [
      {
        serverId: 'gcal',
        serverName: 'Google Calendar',
        tools: [{ name: 'create_event', description: 'Create a calendar event.', inputSchema: { type: 'object' } }],
      },
      {
        serverId: 'slack',
        serverName: 'Slack',
        tools: [{ name: 'post_message', description: 'Post a message to a channel.', inputSchema: { type: 'object' } }],
      },
    ];
    const flat = servers.flatMap((server) =>
      server.tools.map((tool) => ({
        toolKey: `${server.serverId}:${tool.name}`,
        toolName: tool.name,
        serverName: server.serverName,
        description: tool.description,
        inputSchema: tool.inputSchema,
      })),
    );
    const grouped = await search({ query: ['post a message'], servers }, 'project-grouped');
    const sentFlat = await search({ query: ['post a message'], tools: flat }, 'project-grouped');
    expect(grouped.body.meta.toolSet).toBe(sentFlat.body.meta.toolSet);
    const byReference = await search(
      { query: ['post a message'], toolSet: grouped.body.meta.toolSet },
      'project-grouped',
    );
    expect(byReference.status).toBe(200);
    expect(byReference.body.results.map((result) => result.toolKey)).toEqual(
      grouped.body.results.map((result) => result.toolKey),
    );
  });

  it('answers an unknown id with 409 problem+json TOOL_SET_UNKNOWN naming the field', async () => {
    const { status, type, body } = await search({ query: ['x'], toolSet: 'A'.repeat(43) });
    expect(status).toBe(409);
    expect(type).toMatch(/^application\/problem\+json/);
    expect(body).toMatchObject({ code: 'TOOL_SET_UNKNOWN', status: 409, errors: [{ field: '/toolSet' }] });
  });

  it('refuses both tools and toolSet, neither, and a malformed id, naming the field', async () => {
    const both = await search({ ...sampleRequest, toolSet: 'A'.repeat(43) });
    expect(both.status).toBe(400);
    expect(both.body.errors).toEqual([
      { field: '/toolSet', message: 'must not be sent together with tools or servers' },
    ]);
    const neither = await search({ query: ['x'] });
    expect(neither.status).toBe(400);
    expect((neither.body.errors as { field: string }[])[0]!.field).toBe('/tools');
    const malformed = await search({ query: ['x'], toolSet: '../../etc/passwd' });
    expect(malformed.status).toBe(400);
    expect(JSON.stringify(malformed.body.errors)).toContain('/toolSet');
  });

  it('keeps no list from a request it refuses (invalid envelope or filter)', async () => {
    const tools = manyTools(30);
    const id = await toolSetId(tools);
    expect((await search({ query: 42, tools }, 'project-refused')).status).toBe(400);
    expect((await search({ query: ['x'], tools, filter: { tools: ['/(unclosed/'] } }, 'project-refused')).status).toBe(
      400,
    );
    expect((await search({ query: ['x'], toolSet: id }, 'project-refused')).status).toBe(409);
  });

  it("never serves one project's list to another", async () => {
    const { body } = await search(sampleRequest, 'project-a');
    const other = await search({ query: ['x'], toolSet: body.meta.toolSet }, 'project-b');
    expect(other.status).toBe(409);
  });

  it('gives no id for a list larger than the store may hold (no Redis), so the caller keeps sending it in full', async () => {
    const listBytes = 2 * JSON.stringify(manyTools(200)).length;
    const small = await startApp(testConfig({ toolSets: { ttlMs: 60_000, cacheBytes: Math.round(listBytes * 0.5) } }));
    try {
      const tooBig = await search({ query: ['x'], tools: manyTools(200) }, undefined, small);
      expect(tooBig.status).toBe(200);
      expect(tooBig.body.meta.toolSet).toBeUndefined();
      const fits = await search({ query: ['x'], tools: manyTools(20) }, undefined, small);
      expect(fits.body.meta.toolSet).toBe(await toolSetId(manyTools(20)));
      expect((await search({ query: ['x'], toolSet: fits.body.meta.toolSet }, undefined, small)).status).toBe(200);
    } finally {
      await small.close();
    }
  });

  it('keeps the in-process store within TOOL_SET_CACHE_BYTES: the least recently used list goes first', async () => {
    // Room for one 200-tool list (2 bytes a character of its JSON, as estimated), not two.
    const listBytes = 2 * JSON.stringify(manyTools(200)).length;
    const small = await startApp(testConfig({ toolSets: { ttlMs: 60_000, cacheBytes: Math.round(listBytes * 1.5) } }));
    try {
      const first = await search({ query: ['x'], tools: manyTools(200) }, undefined, small);
      const second = await search({ query: ['x'], tools: manyTools(201) }, undefined, small);
      expect((await search({ query: ['x'], toolSet: second.body.meta.toolSet }, undefined, small)).status).toBe(200);
      expect((await search({ query: ['x'], toolSet: first.body.meta.toolSet }, undefined, small)).status).toBe(409);
      const gauge = await small.app.metrics.registry.getSingleMetricAsString('catalog_search_tool_set_store_bytes');
      const held = Number(/catalog_search_tool_set_store_bytes (\d+)/.exec(gauge)![1]);
      expect(held).toBeGreaterThan(listBytes / 2);
      expect(held).toBeLessThanOrEqual(Math.round(listBytes * 1.5));
    } finally {
      await small.close();
    }
  });
});
