import { describe, expect, it } from 'vitest';
import {
  handleToolDiscovery,
  TOOL_DISCOVERY_TOOL,
  toServers,
  type ToolDiscoveryCallResult,
} from '@catalog-search/client';
import { closedPortUrl, TOOLS } from './loopback.js';
import { testClient } from './test-client.js';

// handleToolDiscovery over the local fallback (a port that refuses): the cloud path is driven against
// the real service in test/client/client-tarball.test.ts.

const servers = toServers([
  {
    serverId: 'github',
    serverName: 'GitHub',
    listed: {
      tools: [
        {
          name: 'create_issue',
          title: 'Create issue',
          description: `Open a new issue in a GitHub repository. ${'It takes labels, assignees and milestones. '.repeat(20)}`,
          inputSchema: {
            type: 'object',
            properties: {
              repo: { type: 'string' },
              title: { type: 'string' },
              labels: { type: 'array', items: { type: 'string' } },
              state: { enum: ['open', 'closed'] },
            },
            required: ['repo', 'title'],
          },
          outputSchema: { type: 'object', properties: { number: { type: 'integer' } } },
          annotations: { readOnlyHint: false },
        },
      ],
    },
  },
  {
    serverId: 'slack',
    listed: {
      tools: [
        { name: 'post_message', description: 'Post a message to a Slack channel', inputSchema: { type: 'object' } },
      ],
    },
  },
]);

const call = async (
  args: unknown,
  tools: Parameters<typeof handleToolDiscovery>[2] = servers,
): Promise<ToolDiscoveryCallResult> =>
  handleToolDiscovery(testClient(await closedPortUrl(), { breaker: false }), args, tools);

describe('TOOL_DISCOVERY_TOOL', () => {
  it('is an MCP tool named tool_discovery whose input schema takes query, context, maxResults and detail', () => {
    expect(TOOL_DISCOVERY_TOOL.name).toBe('tool_discovery');
    expect(TOOL_DISCOVERY_TOOL.description).toMatch(/tool_execute/);
    expect(TOOL_DISCOVERY_TOOL.inputSchema.properties.query).toMatchObject({
      type: 'array',
      items: { type: 'string' },
    });
    expect(TOOL_DISCOVERY_TOOL.inputSchema.properties.detail.enum).toEqual(['minimal', 'summary', 'full']);
    expect(TOOL_DISCOVERY_TOOL.annotations.readOnlyHint).toBe(true);
  });
});

describe('handleToolDiscovery', () => {
  it('summary (the default): a cut description and the arguments in one line; full adds schemas and annotations', async () => {
    const summary = await call({ query: ['open an issue on github'] });
    expect(summary._meta).toMatchObject({ source: 'local', fallbackReason: 'network' });
    const [first] = summary.structuredContent!.results;
    expect(first).toMatchObject({
      toolKey: 'github:create_issue',
      title: 'Create issue',
      arguments: 'repo: string, title: string, labels?: string[], state?: "open" | "closed"',
    });
    expect(first!.description!.length).toBeLessThanOrEqual(241);
    expect(first!.description).toMatch(/…$/);
    expect(first!.inputSchema).toBeUndefined();
    expect(summary.content[0]!.text).toContain('1. github:create_issue "Create issue"');

    const full = await call({ query: ['open an issue on github'], detail: 'full' });
    expect(full.structuredContent!.results[0]).toMatchObject({
      inputSchema: { required: ['repo', 'title'] },
      outputSchema: { properties: { number: { type: 'integer' } } },
      annotations: { readOnlyHint: false },
    });
    expect(JSON.parse(full.content[0]!.text)).toEqual(full.structuredContent);
  });

  it('minimal: keys and relevance only; a single query string is taken as one step', async () => {
    const minimal = await call({ query: 'post to slack', detail: 'minimal', maxResults: 1 });
    expect(minimal.structuredContent!.results).toEqual([
      { toolKey: 'slack:post_message', relevance: expect.any(Number) },
    ]);
    expect(minimal.content[0]!.text.split('\n')[0]).toMatch(/^1\. slack:post_message \(0\.\d+\)$/);
  });

  it('joins results to a flat ToolInfo list by toolKey', async () => {
    const result = await call({ query: ['read a file'], detail: 'full', maxResults: 1 }, TOOLS);
    expect(result.structuredContent!.results[0]).toMatchObject({
      toolKey: 'fs:read_file',
      description: 'Read the contents of a file',
    });
  });

  it.each([
    [{}, '/query'],
    [{ query: [] }, '/query'],
    [{ query: ['ok', ''] }, '/query/1'],
    [{ query: ['x'], maxResults: 0 }, '/maxResults'],
    [{ query: ['x'], detail: 'everything' }, '/detail'],
    [{ query: ['x'], context: 5 }, '/context'],
    ['a string', '(root)'],
  ])('bad arguments %j are an isError result naming %s, so the model can correct them', async (args, field) => {
    const result = await call(args);
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toContain(field);
  });

  it('an empty tool list (tool catalog off) answers no results without a search, and says the list is empty', async () => {
    // No tools at all, and servers that list none: the model is told the list is empty, not to try other words.
    for (const empty of [[], [{ serverId: 'files', tools: [] }]]) {
      const result = await call({ query: ['anything'] }, empty);
      expect(result.structuredContent).toEqual({ results: [] });
      expect(result._meta).toBeUndefined();
      expect(result.content[0]!.text).toMatch(/^No tools are available: the tool list is empty/);
      expect(result.content[0]!.text).not.toMatch(/other words/i);
    }
  });

  it('with fallback: false a cloud failure is an isError result; the caller abort still rejects', async () => {
    const client = testClient(await closedPortUrl(), { breaker: false, fallback: false });
    const failed = await handleToolDiscovery(client, { query: ['x'] }, servers);
    expect(failed).toMatchObject({
      isError: true,
      content: [{ text: expect.stringMatching(/^Tool search failed: Connection error/) }],
    });
    const controller = new AbortController();
    controller.abort();
    await expect(handleToolDiscovery(client, { query: ['x'] }, servers, { signal: controller.signal })).rejects.toThrow(
      'aborted',
    );
  });
});
