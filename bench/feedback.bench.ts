// The cost of learning from use per search: the learning step (the project's model matched to the
// request, the raised tools merged into the ranking: src/learning) against the lexical ranking it
// follows (warm rank cache), as eval --feedback sets it up: each set's first half of requests
// reported (gold tools, `succeeded`), the second half searched. CPU time of this process
// (process.cpuUsage), both sides measured in the same rounds, alternating which goes first (bench/rounds.ts).
import { createRankCache, rankTools, type RankedTool } from '../packages/core/src/index.js';
import { applyBoosts } from '../src/learning/learning-step.js';
import { requestTerms } from '../src/learning/report-events.js';
import { ProjectModel } from '../src/learning/project-model.js';
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
