// Learning resists poisoning by a compromised agent inside the project (docs/ranking.md, threat model):
// reports count once per search, and a tool its list marks destructive is not put above a safer one.
import type { ToolInfo } from '@catalog-search/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, testConfig, type RunningApp } from '../helpers/app.js';
import { startTestRedis } from '../helpers/redis-server.js';
import { sampleTools } from '../fixtures/tools.js';
import { routerOf, TAUGHT_TOOL, UNMATCHED_REQUESTS, untilReportsStored } from './feedback-client.js';

let server: RunningApp;
beforeAll(async () => {
  server = await startApp(testConfig());
});
afterAll(() => server.close());

const TEST = ['jot the squad retro takeaways'];

/**
 * Ten reports of one search, in one body or in ten, teach what one report does: the search and its
 * reports go through `reportUrl`, the test search through `testUrl`.
 */
async function tenReportsCountAsOne(reportUrl: string, testUrl: string, project: string): Promise<void> {
  const [query] = UNMATCHED_REQUESTS;
  const reported = async (name: string, bodies: number, perBody: number) => {
    const router = routerOf(reportUrl, `${project}-${name}`);
    const event = {
      requestId: (await router.search(query!, sampleTools)).meta.requestId,
      toolKey: TAUGHT_TOOL,
      outcome: 'succeeded',
    };
    for (let i = 0; i < bodies; i += 1) {
      const { body } = await router.report(Array.from({ length: perBody }, () => event));
      expect(body).toEqual({ accepted: perBody, ignored: [] });
    }
    return (await routerOf(testUrl, `${project}-${name}`).search(TEST, sampleTools)).results;
  };
  const once = await reported('once', 1, 1);
  expect(once[0]!.toolKey).toBe(TAUGHT_TOOL);
  expect(once[0]!.explanation).toMatch(/used for 1 similar request;/);
  expect(JSON.stringify(await reported('ten-in-one-body', 1, 10))).toBe(JSON.stringify(once));
  expect(JSON.stringify(await reported('ten-bodies', 10, 1))).toBe(JSON.stringify(once));
}

describe('one search counts once per tool', () => {
  it('ten reports of one search (one body, or ten) raise the tool exactly as one report does', async () => {
    await tenReportsCountAsOne(server.url, server.url, 'in-process');
  });

  it('so too on two replicas sharing Redis: reported through one, counted once by the other', async () => {
    const redis = await startTestRedis();
    const replica = () =>
      startApp(testConfig({ redis: { url: redis.url, commandTimeoutMs: 2000, keyPrefix: 'poison:' } }));
    const [a, b] = await Promise.all([replica(), replica()]);
    try {
      // Until its Redis connection is up a replica answers reports 503 (not stored), as it should.
      await Promise.all([untilReportsStored(a.url), untilReportsStored(b.url)]);
      await tenReportsCountAsOne(a.url, b.url, 'replicated');
    } finally {
      await Promise.all([a.close(), b.close()]);
      await redis.stop();
    }
  }, 60_000);

  it('reports of the same words count once, whatever requestIds they name; other searches count again', async () => {
    const faked = routerOf(server.url, 'made-up-request-ids');
    const honest = routerOf(server.url, 'one-query-report');
    const [query] = UNMATCHED_REQUESTS;
    await faked.report(
      Array.from({ length: 10 }, (_, i) => ({
        requestId: `made-up-${i}`,
        query,
        toolKey: TAUGHT_TOOL,
        outcome: 'succeeded',
      })),
    );
    await honest.report([{ query, toolKey: TAUGHT_TOOL, outcome: 'succeeded' }]);
    expect(JSON.stringify((await faked.search(TEST, sampleTools)).results)).toBe(
      JSON.stringify((await honest.search(TEST, sampleTools)).results),
    );
    // Three distinct searches are three times the evidence.
    for (const other of UNMATCHED_REQUESTS.slice(1)) {
      const { meta } = await faked.search(other, sampleTools);
      await faked.report([{ requestId: meta.requestId, toolKey: TAUGHT_TOOL, outcome: 'succeeded' }]);
    }
    expect((await faked.search(TEST, sampleTools)).results[0]!.explanation).toMatch(/used for 4 similar requests;/);
  });
});

const github = (toolName: string, description: string, annotations: Record<string, boolean>): ToolInfo => ({
  toolKey: `github:${toolName}`,
  toolName,
  serverName: 'GitHub',
  description,
  inputSchema: { type: 'object', properties: { owner: { type: 'string' }, repo: { type: 'string' } } },
  annotations,
});
/** A GitHub server's tools with the annotations the official server sends. */
const GITHUB_TOOLS: ToolInfo[] = [
  github('get_file_contents', 'Get the contents of a file or directory from a GitHub repository.', {
    readOnlyHint: true,
  }),
  github('search_repositories', 'Search for GitHub repositories.', { readOnlyHint: true }),
  github('create_repository', 'Create a new GitHub repository in your account.', { readOnlyHint: false }),
  github('list_commits', 'Get list of commits of a branch in a GitHub repository.', { readOnlyHint: true }),
  github('delete_repository', 'Delete a GitHub repository. This cannot be undone.', {
    readOnlyHint: false,
    destructiveHint: true,
  }),
  github('create_issue', 'Open a new issue in a GitHub repository.', { readOnlyHint: false }),
];
const BENIGN = ['read the README file of the repository'];
const DESTRUCTIVE = 'github:delete_repository';

describe('a destructive tool is not raised above a safer one that matches as well', () => {
  it('five fake reports do not put delete_repository first for a benign request', async () => {
    const agent = routerOf(server.url, 'injected-agent');
    const before = await agent.search(BENIGN, GITHUB_TOOLS);
    expect(before.results[0]!.toolKey).toBe('github:get_file_contents');
    for (let i = 0; i < 5; i += 1) {
      const { meta } = await agent.search(BENIGN, GITHUB_TOOLS);
      await agent.report([{ requestId: meta.requestId, toolKey: DESTRUCTIVE, outcome: 'succeeded' }]);
    }
    const after = await agent.search(BENIGN, GITHUB_TOOLS);
    expect(after.results[0]!.toolKey).toBe('github:get_file_contents');
  });

  it('however many searches report it, it stays below every safe tool the lexical ranking put before it', async () => {
    const agent = routerOf(server.url, 'persistent-agent');
    const before = (await agent.search(BENIGN, GITHUB_TOOLS)).results.map((result) => result.toolKey);
    const safeAbove = before.slice(0, before.indexOf(DESTRUCTIVE));
    expect(safeAbove.length).toBeGreaterThan(0);
    for (let i = 0; i < 30; i += 1) {
      const { meta } = await agent.search([`${BENIGN[0]} number ${i}`], GITHUB_TOOLS);
      await agent.report([{ requestId: meta.requestId, toolKey: DESTRUCTIVE, outcome: 'succeeded' }]);
    }
    const after = await agent.search(BENIGN, GITHUB_TOOLS);
    const order = after.results.map((result) => result.toolKey);
    for (const safe of safeAbove) expect(order.indexOf(safe)).toBeLessThan(order.indexOf(DESTRUCTIVE));
    const raised = after.results.find((result) => result.toolKey === DESTRUCTIVE)!;
    expect(raised.explanation).toMatch(/raised by past use: used for 30 similar requests, kept below the tools/);
    expect(after.meta.learning).toBe('raised');
  });

  it('the same reports raise a tool not marked destructive to the top', async () => {
    const tools = GITHUB_TOOLS.map((tool) =>
      tool.toolKey === DESTRUCTIVE ? { ...tool, annotations: { readOnlyHint: false } } : tool,
    );
    const agent = routerOf(server.url, 'unmarked-tool');
    for (let i = 0; i < 5; i += 1) {
      const { meta } = await agent.search(BENIGN, tools);
      await agent.report([{ requestId: meta.requestId, toolKey: DESTRUCTIVE, outcome: 'succeeded' }]);
    }
    expect((await agent.search(BENIGN, tools)).results[0]!.toolKey).toBe(DESTRUCTIVE);
  });
});
