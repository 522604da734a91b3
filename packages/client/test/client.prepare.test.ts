import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '@catalog-search/client';
import type { SearchRequest } from '@catalog-search/core';
import { closedPortUrl, expectedLocalResults, REQUEST, TOOLS } from './loopback.js';
import { testClient } from './test-client.js';

describe('prepare(tools)', () => {
  it('does not change what the local fallback returns, also after the list changes', async () => {
    const client = testClient(await closedPortUrl(), { breaker: false });
    client.prepare(TOOLS);
    expect((await client.search(REQUEST)).results).toEqual(expectedLocalResults(REQUEST));

    // The router's list changed after prepare(): a renamed tool and a new one must be ranked as sent.
    const changed: SearchRequest = {
      ...REQUEST,
      tools: [
        ...TOOLS.map((tool) => (tool.toolKey === 'github:create_issue' ? { ...tool, description: 'Close a pull request' } : tool)),
        { toolKey: 'linear:create_issue', toolName: 'create_issue', serverName: 'Linear', description: 'Create an issue in Linear' },
      ],
    };
    const outcome = await client.search(changed);
    expect(outcome.source).toBe('local');
    expect(outcome.results).toEqual(expectedLocalResults(changed));
    expect(outcome.results.map((result) => result.toolKey)).toContain('linear:create_issue');
  });

  it('rejects an invalid tool list, naming the field', async () => {
    const client = testClient(await closedPortUrl());
    const bad = [{ toolKey: 'a:b', serverName: 'A' }] as unknown as typeof TOOLS;
    expect(() => client.prepare(bad)).toThrow(InvalidRequestError);
    expect(() => client.prepare(bad)).toThrow('/tools/0/toolName');
  });
});
