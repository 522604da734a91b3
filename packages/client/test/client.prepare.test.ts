import { describe, expect, it } from 'vitest';
import { createCatalogSearchClient, toServers } from '@catalog-search/client';
import type { ToolListSearchRequest } from '@catalog-search/core';
import { closedPortUrl, expectedLocalResults, REQUEST, TOOLS } from './loopback.js';
import { testClient } from './test-client.js';

describe('prepare(tools)', () => {
  it('does not change what the local fallback returns, also after the list changes', async () => {
    const client = testClient(await closedPortUrl(), { breaker: false });
    client.prepare(TOOLS);
    expect((await client.search(REQUEST)).results).toEqual(expectedLocalResults(REQUEST));

    // The router's list changed after prepare(): a renamed tool and a new one must be ranked as sent.
    const changed: ToolListSearchRequest = {
      ...REQUEST,
      tools: [
        ...TOOLS.map((tool) =>
          tool.toolKey === 'github:create_issue' ? { ...tool, description: 'Close a pull request' } : tool,
        ),
        {
          toolKey: 'linear:create_issue',
          toolName: 'create_issue',
          serverName: 'Linear',
          description: 'Create an issue in Linear',
        },
      ],
    };
    const outcome = await client.search(changed);
    expect(outcome.source).toBe('local');
    expect(outcome.results).toEqual(expectedLocalResults(changed));
    expect(outcome.results.map((result) => result.toolKey)).toContain('linear:create_issue');
  });

  it('skips tools that cannot be used, as a search would', async () => {
    const client = createCatalogSearchClient({ baseUrl: await closedPortUrl(), token: 't', breaker: false });
    const list = [{ toolKey: 'a:b', serverName: 'A' }, 42, ...TOOLS] as unknown as typeof TOOLS;
    expect(() => client.prepare(list)).not.toThrow();
    expect((await client.search(REQUEST)).results).toEqual(expectedLocalResults(REQUEST));
  });

  it('takes the grouped form too, and the fallback on it answers as without prepare', async () => {
    const servers = toServers([
      {
        serverId: 'fs',
        serverName: 'Files',
        listed: { tools: [{ name: 'read_file', description: 'Read a file', inputSchema: { type: 'object' } }] },
      },
    ]);
    const prepared = createCatalogSearchClient({ baseUrl: await closedPortUrl(), token: 't', breaker: false });
    const plain = createCatalogSearchClient({ baseUrl: await closedPortUrl(), token: 't', breaker: false });
    prepared.prepare(servers);
    const request = { query: ['read a file'], servers };
    const outcome = await prepared.search(request);
    expect(outcome.results.map((result) => result.toolKey)).toEqual(['fs:read_file']);
    expect(outcome.results).toEqual((await plain.search(request)).results);
  });
});
