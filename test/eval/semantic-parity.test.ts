// Eval measures the ranking the service serves: the same texts go to the encoder for a request and its
// tools, and the same vectors give the same fused order (the real SDK over HTTP to the test server,
// whose vectors are a bag of the words sent, so a text sent differently gives another vector).
import type { RankedTool, ToolInfo } from '@catalog-search/core';
import { createRankCache, rankTools } from '@catalog-search/core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DiskVectors, evalEmbedder, fusedRanker, SemanticIndex } from '../../eval/semantic-rankers.js';
import { MemoryBudget } from '../../src/memory/exports.js';
import { startDeadline } from '../../src/waits/deadline.js';
import { createEndpointSource } from '../../src/semantic/endpoint-source.js';
import { rankHybrid } from '../../src/semantic/stage.js';
import { VectorProvider } from '../../src/semantic/vector-provider.js';
import { startOpenAITestServer, type OpenAITestServer } from '../helpers/openai-test-server.js';

let server: OpenAITestServer;
let dir: string;
beforeAll(async () => {
  server = await startOpenAITestServer();
  dir = mkdtempSync(join(tmpdir(), 'eval-parity-'));
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const tools: ToolInfo[] = [
  {
    toolKey: 'cal:list_events',
    toolName: 'list_events',
    serverName: 'Calendar MCP Server',
    description: 'List the events of a calendar.\n\nArgs: from, to.',
  },
  {
    toolKey: 'cal:create_event',
    toolName: 'create_event',
    serverName: 'Calendar MCP Server',
    description: 'Create an event in a calendar.',
  },
  {
    toolKey: 'mail:send_email',
    toolName: 'send_email',
    serverName: 'Mail',
    description: 'Send an email message to one or more people.',
  },
  {
    toolKey: 'files:read_file',
    toolName: 'read_file',
    serverName: 'Files',
    description: 'Read a file from the local disk.',
  },
];
// A long request with runs of white space: what is cut and cleaned must be cut and cleaned alike.
const query = ['what   is on my\n\nplate tomorrow? '.repeat(30), 'mail   the team'];

const sentTexts = (from: number): string[] =>
  server.embeddingRequests
    .slice(from)
    .flatMap((body) => (Array.isArray(body.input) ? body.input : [String(body.input)]));

describe('eval = production', () => {
  it('eval embeds exactly the texts the service embeds for a request and its tools, and fuses them into the same order', async () => {
    const memory = new MemoryBudget({ maxBytes: 64 * 1024 * 1024, projectShare: 1 });
    const stage = new VectorProvider(
      createEndpointSource({ baseURL: server.baseURL, model: 'test-embed', batchSize: 8 }),
      {
        cacheBytes: 10_000_000,
        memory,
        waitShare: 1,
        maxQueuedPerProject: 100,
      },
    );
    let from = server.embeddingRequests.length;
    const vectors = await stage.vectors('p', { query, tools }, startDeadline(4000));
    expect(vectors.status).toBe('hybrid');
    const service = new Set(sentTexts(from));

    const index = new SemanticIndex(
      new DiskVectors(
        await evalEmbedder(true, { EMBEDDINGS_BASE_URL: server.baseURL, EMBEDDINGS_MODEL: 'test-embed' }),
        `${dir}/`,
      ),
    );
    from = server.embeddingRequests.length;
    const dataset = { name: 'parity', tools, queries: [], totalQueries: 0 };
    const ranker = fusedRanker(index);
    await ranker.prepare!(dataset);
    const evalFused = await ranker.rankedTools(query, tools);
    expect(new Set(sentTexts(from))).toEqual(service);

    const lexical = rankTools({ query, tools }, { cache: createRankCache() });
    const served = await rankHybrid(stage, { query, tools }, lexical, {
      projectId: 'p',
      deadline: startDeadline(4000),
    });
    expect(served.status).toBe('hybrid');
    const view = (ranked: RankedTool[]) => ranked.map((entry) => [entry.tool.toolKey, entry.relevance]);
    expect(view(evalFused)).toEqual(view(served.ranked));
    await stage.close();
  });

  it("the near miss: a request against the dataset's list without its gold tools ranks as the service ranks that shorter list", async () => {
    const leaveOut = new Set(['cal:list_events', 'mail:send_email']);
    const shorter = tools.filter((tool) => !leaveOut.has(tool.toolKey));
    const stage = new VectorProvider(createEndpointSource({ baseURL: server.baseURL, model: 'test-embed' }), {
      cacheBytes: 10_000_000,
      memory: new MemoryBudget({ maxBytes: 64 * 1024 * 1024, projectShare: 1 }),
      waitShare: 1,
      maxQueuedPerProject: 100,
    });
    const lexical = rankTools({ query, tools: shorter }, { cache: createRankCache() });
    const served = await rankHybrid(stage, { query, tools: shorter }, lexical, {
      projectId: 'p',
      deadline: startDeadline(4000),
    });
    expect(served.status).toBe('hybrid');

    const index = new SemanticIndex(
      new DiskVectors(
        await evalEmbedder(true, { EMBEDDINGS_BASE_URL: server.baseURL, EMBEDDINGS_MODEL: 'test-embed' }),
        `${dir}/`,
      ),
    );
    const ranker = fusedRanker(index);
    await ranker.prepare!({ name: 'near-miss', tools, queries: [], totalQueries: 0 });
    const evalFused = await ranker.rankedTools(query, tools, [], leaveOut);
    const view = (ranked: RankedTool[]) => ranked.map((entry) => [entry.tool.toolKey, entry.relevance]);
    expect(view(evalFused)).toEqual(view(served.ranked));
    expect(evalFused.map((entry) => entry.tool.toolKey)).not.toContain('cal:list_events');
    await stage.close();
  });
});
