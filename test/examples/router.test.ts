import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCatalogSearchClient, type SearchEvent } from '@catalog-search/client';
import { DEMO_SERVERS } from '../../examples/router/demo-servers.js';
import { createRouter } from '../../examples/router/router.js';
import { startApp, testConfig, type RunningApp } from '../helpers/app.js';
import { testToken } from '../helpers/tokens.js';

// examples/router as an MCP client drives it: tools/list, then tool_discovery, then tool_execute on
// what it found, against the real service; then the same with the service stopped (local ranking).

let service: RunningApp;
beforeAll(async () => {
  service = await startApp(testConfig());
});
afterAll(async () => {
  await service.close().catch(() => undefined);
});

describe('examples/router', () => {
  it('lists the two meta-tools, finds a tool through the service, and executes it on its server', async () => {
    const events: SearchEvent[] = [];
    const token = testToken();
    const catalog = createCatalogSearchClient({ baseUrl: service.url, token, onSearch: (event) => events.push(event) });
    const router = createRouter(catalog, DEMO_SERVERS);
    let id = 0;
    const rpc = async (method: string, params?: Record<string, unknown>) =>
      (
        (await router.handle({ jsonrpc: '2.0', id: (id += 1), method, ...(params ? { params } : {}) })) as {
          result: any;
        }
      ).result;

    expect((await rpc('initialize')).capabilities).toEqual({ tools: {} });
    expect((await rpc('tools/list')).tools.map((tool: { name: string }) => tool.name)).toEqual([
      'tool_discovery',
      'tool_execute',
    ]);

    const found = await rpc('tools/call', {
      name: 'tool_discovery',
      arguments: { query: ['invite the team to a meeting on Tuesday'], maxResults: 3 },
    });
    expect(found._meta.source).toBe('cloud');
    const best = found.structuredContent.results[0];
    expect(best.toolKey).toBe('calendar:create_event');
    expect(best.arguments).toBe('title: string, start: string, attendees?: string[]');

    const executed = await rpc('tools/call', {
      name: 'tool_execute',
      arguments: { toolKey: best.toolKey, arguments: { title: 'Review', start: '2026-12-01T10:00:00Z' } },
    });
    expect(executed.content[0].text).toBe(
      'Calendar.create_event called with {"title":"Review","start":"2026-12-01T10:00:00Z"}',
    );
    expect((await rpc('tools/call', { name: 'tool_execute', arguments: { toolKey: 'nowhere:tool' } })).isError).toBe(
      true,
    );

    await service.close();
    const offline = await rpc('tools/call', {
      name: 'tool_discovery',
      arguments: { query: ['invite the team to a meeting on Tuesday'], maxResults: 3 },
    });
    expect(offline._meta).toMatchObject({ source: 'local', fallbackReason: 'network' });
    expect(offline.structuredContent.results[0].toolKey).toBe('calendar:create_event');
    expect(events.map((event) => event.source)).toEqual(['cloud', 'local']);
  });
});
