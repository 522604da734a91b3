// Inference by colluding projects (issue 48): a tenant can create k − 1 projects, report a made-up
// word with a tool from each, and watch whether a fresh project's answer changes, which it would only
// if one more project (the victim) had said the same. Over loopback HTTP with shared learning on, the
// keyed per-association threshold (k + 1 … k + SPREAD) leaves them nothing to see, and the
// relevance of a shared boost does not say how many projects stand behind it.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchResponse, ToolInfo } from '@catalog-search/core';
import { startApp, testConfig, type RunningApp } from '../helpers/app.js';
import { routerOf } from '../routes/feedback-client.js';

const K = 5;
/** Each association's threshold lies in K + 1 … K + SPREAD (LEARNING_SHARED_THRESHOLD_SPREAD). */
const SPREAD = 3;
const TRIALS = 20;
const CONTROLS = 4;

const tool = (serverName: string, toolName: string, description: string): ToolInfo => ({
  toolKey: `${serverName}:${toolName}`,
  toolName,
  serverName,
  description,
  inputSchema: { type: 'object', properties: {} },
});
const TOOLS: ToolInfo[] = [
  tool('ci', 'run_workflow', 'Start a CI workflow run on a branch.'),
  tool('ci', 'list_runs', 'List recent workflow runs and their status.'),
  tool('ci', 'get_logs', 'Fetch the logs of a job.'),
  tool('hr', 'list_employees', 'List the people of a department.'),
  tool('hr', 'get_payslip', 'Get an employee payslip for a month.'),
  tool('docs', 'search_pages', 'Search the wiki pages by text.'),
];
const TARGET = 'ci:run_workflow';

let plain: RunningApp;
/** With the history rule, the hold and the rate (their defaults), on learning's own clock. */
let admitting: RunningApp;
let now = Date.now();

beforeAll(async () => {
  const config = testConfig();
  const shared = { enabled: true, minProjects: K, thresholdSpread: SPREAD, maxAssociations: 10_000 };
  const { admission, maxSays } = config.feedback.shared;
  [plain, admitting] = await Promise.all([
    startApp({ ...config, feedback: { ...config.feedback, shared } }),
    startApp(
      { ...config, feedback: { ...config.feedback, shared: { ...shared, admission, maxSays } } },
      { learningClock: () => now },
    ),
  ]);
});
afterAll(() => Promise.all([plain.close(), admitting.close()]));

const HOUR = 3_600_000;

/** Each project searches each request once and reports `toolKey` as used for all of them, in one body. */
async function teachNow(projects: ReturnType<typeof routerOf>[], requests: string[][], toolKey: string) {
  for (const project of projects) {
    const events = [];
    for (const query of requests) {
      const { meta } = await project.search(query, TOOLS);
      events.push({ requestId: meta.requestId, toolKey, outcome: 'succeeded' });
    }
    expect((await project.report(events)).status).toBe(202);
  }
}

/** What an observer can compare between two requests: the tools, relevances and learning status. */
const seen = (response: SearchResponse) =>
  JSON.stringify({
    learning: response.meta.learning ?? null,
    results: response.results.map((r) => [r.toolKey, r.relevance]),
  });
/** A made-up word of letters only (the tokenizer splits at digits), unlike any other. */
const made = () => Array.from(randomBytes(12), (byte) => String.fromCharCode(97 + (byte % 26))).join('');

for (const admits of [false, true]) {
  describe(`shared learning against colluding projects (k = 5${admits ? ', aged projects, held associations' : ''})`, () => {
    const server = {
      get url() {
        return (admits ? admitting : plain).url;
      },
    };
    /**
     * With the history rule: each project first reports a word of its own (its history), and a day
     * later, when it counts, teaches; a search comes after the hold and the turns. Without: at once.
     */
    async function teach(projects: ReturnType<typeof routerOf>[], requests: string[][], toolKey: string) {
      if (admits) {
        for (const project of projects) await teachNow([project], [[made()]], toolKey);
        now += 25 * HOUR;
      }
      await teachNow(projects, requests, toolKey);
    }
    const later = () => {
      if (admits) now += 2 * HOUR;
    };

    it('k − 1 colluders cannot tell a victim’s one report of a made-up word from control words', async () => {
      let toldApart = 0;
      for (let trial = 0; trial < TRIALS; trial += 1) {
        const word = made();
        const controls = Array.from({ length: CONTROLS }, made);
        // The victim, a project of its own, once used the word with the tool.
        await teach([routerOf(server.url, `victim-${trial}`)], [[word]], TARGET);
        // k − 1 colluders report the word and the controls with the same tool; a fresh one observes.
        const colluders = Array.from({ length: K - 1 }, (_, i) => routerOf(server.url, `colluder-${trial}-${i}`));
        await teach(colluders, [[word], ...controls.map((control) => [control])], TARGET);
        later();
        const observer = routerOf(server.url, `observer-${trial}`);
        const answer = seen(await observer.search([word], TOOLS));
        const controlAnswers = await Promise.all(
          controls.map(async (control) => seen(await observer.search([control], TOOLS))),
        );
        // The attacker's best test: does the word's answer differ from every control's?
        if (controlAnswers.every((control) => control !== answer)) toldApart += 1;
        expect(controlAnswers).toEqual(controlAnswers.map(() => answer));
      }
      expect(toldApart).toBe(0);
    }, 120_000);

    it('the observation does see a shared boost once enough projects said it (the test is not blind)', async () => {
      const word = made();
      const projects = Array.from({ length: K + SPREAD }, (_, i) => routerOf(server.url, `many-${i}`));
      const observer = routerOf(server.url, 'observer-many');
      const before = await observer.search([word], TOOLS);
      await teach(projects, [[word]], TARGET);
      later();
      const after = await observer.search([word], TOOLS);
      expect(seen(after)).not.toBe(seen(before));
      expect(after.meta.learning).toBe('shared');
      expect(after.results[0]!.toolKey).toBe(TARGET);
      await Promise.all(projects.map((project) => project.forget()));
    });

    it('a shared boost’s relevance is the same for 8, 11 and 20 projects', async () => {
      const relevances = new Set<string>();
      for (const count of [K + SPREAD, K + SPREAD + 3, 4 * K]) {
        const word = made();
        const projects = Array.from({ length: count }, (_, i) => routerOf(server.url, `count-${count}-${i}`));
        await teach(projects, [[word], [`start ${word} on main`]], TARGET);
        later();
        const observer = routerOf(server.url, `observer-count-${count}`);
        const answers = [await observer.search([word], TOOLS), await observer.search([`start ${word} on main`], TOOLS)];
        for (const answer of answers) expect(answer.meta.learning).toBe('shared');
        relevances.add(JSON.stringify(answers.map((answer) => answer.results.map((r) => [r.toolKey, r.relevance]))));
        await Promise.all(projects.map((project) => project.forget()));
      }
      expect([...relevances]).toHaveLength(1);
    }, 60_000);
  });
}
