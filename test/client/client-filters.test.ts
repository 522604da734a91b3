import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCatalogSearchClient, toServers, type SearchRequest } from '@catalog-search/client';
import { startApp, testConfig, type RunningApp } from '../helpers/app.js';
import { testToken } from '../helpers/tokens.js';
import { sampleTools } from '../fixtures/tools.js';
import { closedPortUrl } from '../../packages/client/test/loopback.js';

// Filters, boosts and minRelevance run through core in both places: the service (BM25 mode) and
// the client's local fallback must give the same answer to every request of this set.

const tagged = sampleTools.map((tool, index) => ({
  ...tool,
  tags: index % 3 === 0 ? ['files', 'core'] : index % 3 === 1 ? ['chat'] : [],
}));
const annotated = tagged.map((tool, index) => ({
  ...tool,
  annotations: { readOnlyHint: index % 2 === 0, ...(index % 4 === 1 ? { destructiveHint: false } : {}) },
}));

const RELEVANCE_SET: { name: string; request: SearchRequest }[] = [
  {
    name: 'filter.servers',
    request: { query: ['read a file'], tools: annotated, filter: { servers: ['filesystem', 'GitHub'] } },
  },
  {
    name: 'filter.excludeServers',
    request: { query: ['send a message by email'], tools: annotated, filter: { excludeServers: ['slack'] } },
  },
  {
    name: 'filter.tools globs and negation',
    request: { query: ['create something'], tools: annotated, filter: { tools: ['create_*', '!*pull*'] } },
  },
  {
    name: 'filter.tools /regex/i',
    request: { query: ['search'], tools: annotated, filter: { tools: ['/^SEARCH_/i'] } },
  },
  { name: 'filter.tags', request: { query: ['read a file'], tools: annotated, filter: { tags: ['files'] } } },
  { name: 'filter.readOnly', request: { query: ['list the issues'], tools: annotated, filter: { readOnly: true } } },
  {
    name: 'filter.excludeDestructive',
    request: { query: ['delete the event'], tools: annotated, filter: { excludeDestructive: true } },
  },
  {
    name: 'boost.tags',
    request: { query: ['send a message about the file'], tools: annotated, boost: { tags: ['chat'] } },
  },
  { name: 'minRelevance', request: { query: ['write the report to a file'], tools: annotated, minRelevance: 0.5 } },
  {
    name: 'the grouped form with a filter and a boost',
    request: {
      query: ['read a file and post it'],
      servers: toServers([
        {
          serverId: 'fs',
          serverName: 'Filesystem',
          listed: { tools: [{ name: 'read_file', description: 'Read a file', inputSchema: { type: 'object' } }] },
        },
        {
          serverId: 'chat',
          listed: [
            { tools: [{ name: 'post', description: 'Post a message', inputSchema: { type: 'object' } }] },
            { tools: [{ name: 'read_channel', description: 'Read a channel', inputSchema: { type: 'object' } }] },
          ],
        },
      ]),
      filter: { tools: ['!read_channel'] },
      boost: { tags: ['none'] },
    },
  },
];

let service: RunningApp;
beforeAll(async () => {
  service = await startApp(testConfig());
});
afterAll(() => service.close());

describe('service and client fallback agree on filters and boosts', () => {
  it.each(RELEVANCE_SET)('$name', async ({ request }) => {
    const cloud = await createCatalogSearchClient({ baseUrl: service.url, token: testToken(), fallback: false }).search(
      request,
    );
    const local = await createCatalogSearchClient({
      baseUrl: await closedPortUrl(),
      token: 't',
      breaker: false,
    }).search(request);
    expect(cloud.source).toBe('cloud');
    expect(local.source).toBe('local');
    expect(local.results).toEqual(cloud.results);
    expect(cloud.results.length).toBeGreaterThan(0);
  });

  it('the boost is named in the explanation on both sides', async () => {
    const request = RELEVANCE_SET.find((entry) => entry.name === 'boost.tags')!.request;
    const cloud = await createCatalogSearchClient({ baseUrl: service.url, token: testToken(), fallback: false }).search(
      request,
    );
    expect(cloud.results.some((result) => /boost\.tags/.test(result.explanation ?? ''))).toBe(true);
  });
});
