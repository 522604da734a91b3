// The cost of learning from use per search: the learning step (the project's model matched to the
// request, the raised tools merged into the ranking: src/learning) against the lexical ranking it
// follows (warm rank cache), as eval --feedback sets it up: each set's first half of requests
// reported (gold tools, `succeeded`), the second half searched. CPU time of this process
// (process.cpuUsage), both sides measured in the same rounds, alternating which goes first (bench/rounds.ts).
import { createRankCache, rankTools, type RankedTool } from '../packages/core/src/index.js';
import { applyBoosts } from '../src/learning/learning-step.js';
import { requestTerms } from '../src/learning/report-events.js';
import { ProjectModel } from '../src/learning/own/project-model.js';
import { commonStepBoosts } from '../src/learning/shared/common-steps.js';
import { associationId, SharedModel, TOOL_USE_TERM } from '../src/learning/shared/shared-model.js';
import { TermKeys } from '../src/learning/term-keys.js';
import { listHashes, ListWords } from '../src/learning/shared/shared-learning.js';
import { loadDatasets } from '../eval/datasets.js';
import { hash53 } from '../eval/sample-hash.js';
import { alternatingRounds, median } from './rounds.js';

const ROUNDS = 9;
const cpuMs = (run: () => void): number => {
  const started = process.cpuUsage();
  run();
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000;
};

for (const dataset of loadDatasets({ only: ['toollens', 'toolbench_stb', 'mcptoolbench_pp'] })) {
  const train = dataset.queries.filter((query) => hash53(query.id, 11) % 2 === 0);
  const test = dataset.queries.filter((query) => hash53(query.id, 11) % 2 === 1);
  const now = Date.now();
  const model = new ProjectModel({ halfLifeMs: 30 * 86_400_000, priorReports: 3, maxBoost: 1 });
  for (const query of train)
    for (const toolKey of query.relevant) model.add({ at: now, toolKey, weight: 1, terms: requestTerms(query.query) });
  const cache = createRankCache();
  const rankings: RankedTool[][] = test.map((query) =>
    rankTools({ query: query.query, tools: dataset.tools }, { cache }),
  );
  // Both sides once before measuring (JIT).
  for (const [i, query] of test.entries())
    applyBoosts(rankings[i]!, dataset.tools, model.boosts(requestTerms(query.query), now), 10);

  const { a: lexical, b: learning } = await alternatingRounds(
    ROUNDS,
    async () =>
      cpuMs(() => {
        for (const query of test) rankTools({ query: query.query, tools: dataset.tools }, { cache });
      }) / test.length,
    async () =>
      cpuMs(() => {
        // The lexical ranking is copied for each run: the step reorders (and caps) a ranking of its own.
        for (const [i, query] of test.entries()) {
          applyBoosts([...rankings[i]!], dataset.tools, model.boosts(requestTerms(query.query), now), 10);
        }
      }) / test.length,
  );
  const lexicalMs = median(lexical);
  const learningMs = median(learning);
  console.log(
    `${dataset.name.padEnd(16)} ${dataset.tools.length} tools, ${model.size} with reports, ${test.length} requests: ` +
      `lexical ranking ${lexicalMs.toFixed(3)} ms, learning step ${learningMs.toFixed(3)} ms (${(learningMs / lexicalMs).toFixed(2)}× the lexical ranking), median CPU of ${ROUNDS} rounds`,
  );
}

// Shared learning (LEARNING_SHARED): the shared model built as eval --feedback --projects 30 builds it
// (request i to project i mod 30, k = 5), then per search what SharedLearning.boosts does: the term
// associations, and the common steps read over the whole list (common-steps.ts).
const SHARED_PROJECTS = 30;
const SHARED_K = 5;
const keys = new TermKeys(Buffer.alloc(32, 7));
for (const dataset of loadDatasets({ only: ['toollens', 'toolbench_stb', 'mcptoolbench_pp'] })) {
  const train = dataset.queries.filter((query) => hash53(query.id, 11) % 2 === 0);
  const test = dataset.queries.filter((query) => hash53(query.id, 11) % 2 === 1);
  const now = Date.now();
  const at = Math.floor(now / 60_000);
  const toolIds = new Map(dataset.tools.map((tool) => [tool.toolKey, keys.tool(tool)]));
  const projectsOf = new Map<string, Set<number>>();
  train.forEach((query, i) => {
    const terms = [...keys.terms(requestTerms(query.query)), TOOL_USE_TERM];
    for (const toolKey of query.relevant)
      for (const term of terms) {
        const id = associationId(term, toolIds.get(toolKey)!);
        const projects = projectsOf.get(id) ?? new Set<number>();
        projects.add(i % SHARED_PROJECTS);
        projectsOf.set(id, projects);
      }
  });
  const model = new SharedModel({
    minProjects: SHARED_K - 1,
    thresholdSpread: 1,
    draw: () => 0,
    halfLifeMs: 30 * 86_400_000,
    maxBoost: 0.9,
  });
  for (const [id, projects] of projectsOf)
    model.set(id, { pos: projects.size, neg: 0, posAt: at * projects.size, negAt: 0 });
  const cache = createRankCache();
  const rankings = test.map((query) => rankTools({ query: query.query, tools: dataset.tools }, { cache }));
  const listIds = dataset.tools.map((tool) => ({ tool, id: toolIds.get(tool.toolKey)! }));
  const queryWords = test.map((query) => requestTerms(query.query));
  const queryTerms = queryWords.map((words) => keys.terms(words));
  // The list's content ids and its words are made once per list (while the tool-set store holds it):
  // timed apart, the median of 5 makings each.
  const onceMs = (make: () => unknown) => median([0, 1, 2, 3, 4].map(() => cpuMs(make)));
  const toolIdsMs = onceMs(() => dataset.tools.map((tool) => keys.tool(tool)));
  const listWordsMs = onceMs(() => new ListWords(dataset.tools));
  const words = new ListWords(dataset.tools);
  const termStep = (i: number) => {
    const ofList = listHashes({ words: queryWords[i]!, hashes: queryTerms[i]! }, words);
    return model.boosts(queryTerms[i]!, now, (term) => ofList.has(term));
  };
  const commonStep = (i: number) =>
    commonStepBoosts(
      listIds.map(({ tool, id }) => ({ tool, projects: model.usedBy(id, now) })),
      rankings[i]!,
      0.9,
    );
  // Both once before measuring (JIT).
  for (const i of test.keys()) {
    termStep(i);
    commonStep(i);
  }
  const perSearch = (run: (i: number) => unknown) => async () =>
    cpuMs(() => {
      for (const i of test.keys()) run(i);
    }) / test.length;
  const { a: terms, b: steps } = await alternatingRounds(ROUNDS, perSearch(termStep), perSearch(commonStep));
  console.log(
    `${dataset.name.padEnd(16)} shared (k = ${SHARED_K}, ${model.size} associations): term associations ` +
      `${median(terms).toFixed(3)} ms, common steps ${median(steps).toFixed(3)} ms per search, median CPU of ${ROUNDS} rounds; ` +
      `once per list: its content ids ${toolIdsMs.toFixed(1)} ms, its ${words.size} words ${listWordsMs.toFixed(1)} ms`,
  );
}
