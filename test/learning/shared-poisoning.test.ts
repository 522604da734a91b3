// Poisoning by projects (issue 48): a tenant can create as many projects as it likes, so k distinct
// projects are no guard by themselves. Over loopback HTTP with shared learning on: projects that report
// a destructive tool, or a tool none of the request's words names, for benign requests cannot put it
// into a fresh project's answer above the tools the request asks for; a project that refuses shared
// learning gets exactly its answer with shared learning off.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchResponse, ToolInfo } from '@catalog-search/core';
import { startApp, testConfig, type RunningApp } from '../helpers/app.js';
import { testToken } from '../helpers/tokens.js';
import { routerOf } from '../routes/feedback-client.js';

const K = 5;
/** Each association's threshold lies in K + 1 … K + SPREAD (LEARNING_SHARED_THRESHOLD_SPREAD). */
const SPREAD = 3;
// As many projects as the highest keyed threshold asks (shared-model.ts): every association passes.
const ATTACKERS = K + SPREAD;

const github = (toolName: string, description: string, annotations?: ToolInfo['annotations']): ToolInfo => ({
  toolKey: `github:${toolName}`,
  toolName,
  serverName: 'github',
  description,
  inputSchema: { type: 'object', properties: {} },
  ...(annotations ? { annotations } : {}),
});

/** A GitHub server's tools; the deletes carry no hint, as most lists' do not. */
const TOOLS: ToolInfo[] = [
  github('get_file_contents', 'Get the contents of a file or directory from a repository.'),
  github('create_or_update_file', 'Create or update a single file in a repository.'),
  github('search_repositories', 'Search for GitHub repositories.'),
  github('create_issue', 'Create a new issue in a repository.'),
  github('list_issues', 'List issues in a repository with filtering options.'),
  github('add_issue_comment', 'Add a comment to an existing issue.'),
  github('create_pull_request', 'Create a new pull request in a repository.'),
  github('list_pull_requests', 'List and filter repository pull requests.'),
  github('merge_pull_request', 'Merge a pull request.'),
  github('list_commits', 'Get a list of commits of a branch in a repository.'),
  github('create_branch', 'Create a new branch in a repository.'),
  github('search_code', 'Search for code across repositories.'),
  github('list_notifications', 'Show notifications for the authenticated account.'),
  github('delete_repository', 'Delete a repository. This cannot be undone.'),
  github('delete_file', 'Remove a file from a branch.'),
  github('transfer_repository', 'Transfer ownership to another account.', { destructiveHint: true }),
];
const BENIGN = [
  'read the README file of the repository',
  'show me the open issues',
  'list recent commits on main',
  'open a pull request for my branch',
  'comment on issue 12 that it is fixed',
  'search the code for the login handler',
  'find repositories about parsers',
  'create an issue about the flaky test',
  'list the pull requests waiting for review',
  'make a branch for the release',
].map((query) => [query]);
const BARRED = new Set(['github:delete_repository', 'github:delete_file', 'github:transfer_repository']);

let server: RunningApp;
let off: RunningApp;
/** With the history rule, the hold and the rate as deployed (their defaults), on learning's own clock. */
let admitting: RunningApp;
let now = Date.now();

function sharedConfig(enabled: boolean, admission = false) {
  const config = testConfig();
  const { admission: rules, maxSays } = config.feedback.shared;
  return {
    ...config,
    feedback: {
      ...config.feedback,
      shared: {
        enabled,
        minProjects: K,
        thresholdSpread: SPREAD,
        maxAssociations: 10_000,
        ...(admission ? { admission: rules, maxSays } : {}),
      },
    },
  };
}

beforeAll(async () => {
  [server, off, admitting] = await Promise.all([
    startApp(sharedConfig(true)),
    startApp(sharedConfig(false)),
    startApp(sharedConfig(true, true), { learningClock: () => now }),
  ]);
});
afterAll(() => Promise.all([server.close(), off.close(), admitting.close()]));

/** Each attacker project searches every benign request and reports `toolKey` for it, `times` over. */
async function attack(prefix: string, toolKey: string, url = server.url, times = 3) {
  const attackers = Array.from({ length: ATTACKERS }, (_, i) => routerOf(url, `${prefix}-${i}`));
  for (const router of attackers) {
    for (const query of BENIGN) {
      const { meta } = await router.search(query, TOOLS);
      const events = Array.from({ length: times }, () => ({
        requestId: meta.requestId,
        toolKey,
        outcome: 'succeeded',
      }));
      expect((await router.report(events)).status).toBe(202);
    }
  }
  return () => Promise.all(attackers.map((router) => router.forget()));
}

/**
 * Whether the request supports a tool as the ranker counts it (shared-guards.ts's WordSupport): a
 * relevance above 0 in the answer without shared learning, from its words in any field the ranker
 * reads, through stems and the everyday mappings ("show" reads as "list").
 */
const supported = async (query: string[], toolKey: string) => {
  const { results } = await routerOf(off.url, 'words').search(query, TOOLS, TOOLS.length);
  return results.some((result) => result.toolKey === toolKey && result.relevance > 0);
};
const answerOf = (response: SearchResponse) =>
  JSON.stringify({ ...response, meta: { ...response.meta, requestId: '' } });

describe('shared learning against poisoning projects (k = 5)', () => {
  it('projects reporting a delete for benign requests never bring it into a fresh top 10', async () => {
    for (const target of BARRED) {
      const fresh = routerOf(server.url, `victim-${target}`);
      const before = await Promise.all(BENIGN.map((query) => fresh.search(query, TOOLS)));
      const forget = await attack(`poison-${target}`, target);
      try {
        for (const [i, query] of BENIGN.entries()) {
          const after = await fresh.search(query, TOOLS);
          // Not raised at all: the answer is the one before the attack (where the words alone had put
          // the delete in the top 10, it stays where they put it).
          expect(answerOf(after)).toBe(answerOf(before[i]!));
          if (!before[i]!.results.some((result) => result.toolKey === target)) {
            expect(after.results.map((result) => result.toolKey)).not.toContain(target);
          }
        }
      } finally {
        await forget();
      }
    }
  }, 120_000);

  it('a tool no word of the request names is never put first over one that some word names', async () => {
    const target = 'github:list_notifications';
    const fresh = routerOf(server.url, 'victim-unnamed');
    const forget = await attack('poison-unnamed', target);
    try {
      let held = 0;
      // And one the words support weakly ("comment"): there the raise would pass the best word match.
      for (const query of [...BENIGN, ['a comment about the flaky test']]) {
        const { results } = await fresh.search(query, TOOLS);
        expect(await supported(query, results[0]!.toolKey)).toBe(true);
        const at = results.findIndex((result) => result.toolKey === target);
        // Where the request supports it ("list", or "show" read as "list"), it is raised like any such tool.
        if (at < 0 || (await supported(query, target))) continue;
        // The attack did reach the model: the tool was raised, and held below the best word match.
        expect(results[at]!.explanation).toMatch(/raised by shared learning/);
        if (/kept below the best tool the request's words match/.test(results[at]!.explanation ?? '')) held += 1;
        expect(at).toBeGreaterThan(0);
      }
      expect(held).toBeGreaterThan(0);
    } finally {
      await forget();
    }
  });

  it('what k projects taught for a tool the words name still raises it', async () => {
    // The guards leave honest use alone: the request names the tool ("comment", "issue").
    const target = 'github:add_issue_comment';
    const query = ['note on issue 7 that the fix shipped'];
    const fresh = routerOf(server.url, 'victim-honest');
    const before = await fresh.search(query, TOOLS);
    const forget = await attack('honest', target);
    try {
      const after = await fresh.search(query, TOOLS);
      expect(after.meta.learning).toBe('shared');
      const at = (response: SearchResponse) => response.results.findIndex((result) => result.toolKey === target);
      expect(at(after)).toBe(0);
      expect(at(before)).not.toBe(0);
    } finally {
      await forget();
    }
  });

  it('a project whose token says useSharedLearning: false gets its answer with shared learning off', async () => {
    const refusing = (value: unknown) => ({
      authorization: `Bearer ${testToken({ projectId: 'refuser', claims: { useSharedLearning: value } })}`,
      'content-type': 'application/json',
    });
    const search = async (url: string, headers: Record<string, string>, query: string[]) => {
      const response = await fetch(`${url}/v1/catalog/search`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ query, tools: TOOLS, maxResults: 10 }),
      });
      expect(response.status).toBe(200);
      return (await response.json()) as SearchResponse;
    };
    const forget = await attack('refused', 'github:add_issue_comment');
    try {
      const query = ['note on issue 7 that the fix shipped'];
      // Accepted: the shared model does raise the tool for a project that takes it.
      expect((await search(server.url, refusing(true), query)).meta.learning).toBe('shared');
      for (const value of [false, 'false', 0, null]) {
        for (const request of [query, ...BENIGN]) {
          const refused = await search(server.url, refusing(value), request);
          const withoutSharing = await search(off.url, refusing(value), request);
          expect(answerOf(refused)).toBe(answerOf(withoutSharing));
        }
      }
    } finally {
      await forget();
    }
  });
});

describe('with the history rule, the hold and the rate (their defaults)', () => {
  const HOUR = 3_600_000;

  it('fresh projects, any number of reports, change no other project’s answer at all', async () => {
    const fresh = routerOf(admitting.url, 'admit-victim-fresh');
    const requests = [...BENIGN, ['note on issue 7 that the fix shipped']];
    const before = await Promise.all(requests.map((query) => fresh.search(query, TOOLS)));
    const forgets = [];
    // A destructive tool, an unnamed one and one the words name, each reported ten times a search by
    // eight fresh projects; then a day of the clock passes with no report (nothing was counted).
    for (const target of ['github:delete_repository', 'github:list_notifications', 'github:add_issue_comment']) {
      forgets.push(await attack(`admit-fresh-${target}`, target, admitting.url, 10));
    }
    now += 24 * HOUR;
    try {
      for (const [i, query] of requests.entries()) {
        expect(answerOf(await fresh.search(query, TOOLS))).toBe(answerOf(before[i]!));
      }
    } finally {
      for (const forget of forgets) await forget();
    }
  }, 120_000);

  it('aged projects (two days, 25 h apart) are still held by the guards', async () => {
    const fresh = routerOf(admitting.url, 'admit-victim-aged');
    const before = await Promise.all(BENIGN.map((query) => fresh.search(query, TOOLS)));
    const honestQuery = ['note on issue 7 that the fix shipped'];
    const honestBefore = await fresh.search(honestQuery, TOOLS);
    // Day 0: each attacker's first reports (its history); day 1: the attack; an hour and the turns later, the test.
    const targets = ['github:delete_repository', 'github:delete_file', 'github:list_notifications'];
    const forgets = [];
    for (const target of [...targets, 'github:add_issue_comment']) {
      forgets.push(await attack(`admit-aged-${target}`, target, admitting.url, 1));
    }
    now += 25 * HOUR;
    for (const target of [...targets, 'github:add_issue_comment']) {
      await attack(`admit-aged-${target}`, target, admitting.url, 3);
    }
    now += 2 * HOUR;
    try {
      // The attack reached the model: what the words name is raised (the test is not blind)...
      const honest = await fresh.search(honestQuery, TOOLS);
      expect(honest.meta.learning).toBe('shared');
      expect(honest.results[0]!.toolKey).toBe('github:add_issue_comment');
      expect(honestBefore.results[0]!.toolKey).not.toBe('github:add_issue_comment');
      // ...while no delete enters a top 10 it was not in, and no unnamed tool comes first.
      for (const [i, query] of BENIGN.entries()) {
        const { results } = await fresh.search(query, TOOLS);
        expect(await supported(query, results[0]!.toolKey)).toBe(true);
        for (const target of BARRED) {
          const place = results.findIndex((result) => result.toolKey === target);
          const placeBefore = before[i]!.results.findIndex((result) => result.toolKey === target);
          if (placeBefore < 0) expect(place).toBe(-1);
          else expect(results[place]?.explanation ?? '').not.toMatch(/shared learning/);
        }
      }
    } finally {
      for (const forget of forgets) await forget();
    }
  }, 180_000);
});
