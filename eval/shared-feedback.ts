// `npm run eval -- --feedback --projects N [--k K,K] [--only NAME,NAME] [--max N]`: shared learning across
// projects (LEARNING_SHARED), simulated as a deployment through the HTTP API. Each set's requests are
// split in two by a stable hash of their id; the training half is spread over N projects (request i to
// project i mod N) that search it and report the gold tools by the search's requestId; the test half
// is searched by a fresh project that never reported, before (an empty shared model) and after. For
// k = 1, 3, 5 (LEARNING_SHARED_MIN_PROJECTS), clean and with 30 % of reports naming a wrong tool:
// NDCG@10 with the paired bootstrap interval. Between conditions every project DELETEs, and the
// fresh project must rank byte-identically to before (withdrawal).
//
// Shared learning counts only projects with a history and associations that held a while, at a rate
// (LEARNING_SHARED_MIN_PROJECT_DAYS …, docs/privacy.md), so the simulation runs on a clock of its own
// (learning's; tokens keep the real one): each project first reports its first request a day before
// (its history), then all of its requests, and the fresh project is tested a day later, when every
// association has had its hold and its turn (1,000 an hour by default).
import { randomBytes } from 'node:crypto';
import { loadDatasets } from './datasets.js';
import {
  mean,
  ndcgOf,
  NOISE,
  routerFor,
  searchAll,
  SPLIT_SEED,
  startEvalService,
  teach,
  type Router,
} from './feedback.js';
import { pairedBootstrap } from './metrics.js';
import { hash53 } from './sample-hash.js';

const KS = [1, 3, 5];
const CONDITIONS = [
  { name: 'clean', noise: 0 },
  { name: 'noisy', noise: NOISE },
];

interface SharedResult {
  dataset: string;
  projects: number;
  k: number;
  condition: string;
  before: number;
  after: number;
  change: number;
  low: number;
  high: number;
  withdrawn: boolean;
}

export async function runSharedFeedbackEval(options: {
  projects: number;
  only?: string[] | undefined;
  max?: number | undefined;
  /** The k to run (default KS); one k takes a third of the time. */
  ks?: number[] | undefined;
}): Promise<SharedResult[]> {
  const datasets = loadDatasets({
    ...(options.only ? { only: options.only } : {}),
    ...(options.max ? { maxQueries: options.max } : {}),
  });
  console.log(
    `== Shared learning through the HTTP API: ${options.projects} projects teach, a fresh one is tested (NDCG@10; paired bootstrap 95 %) ==`,
  );
  const results: SharedResult[] = [];
  for (const k of options.ks?.filter((k) => Number.isInteger(k) && k > 0) ?? KS) {
    let now = Date.now();
    const service = await startService(k, () => now);
    try {
      for (const dataset of datasets) {
        if (dataset.queries.length === 0) continue;
        const train = dataset.queries.filter((query) => hash53(query.id, SPLIT_SEED) % 2 === 0);
        const test = dataset.queries.filter((query) => hash53(query.id, SPLIT_SEED) % 2 === 1);
        const run = `${dataset.name}-k${k}`;
        const fresh = await routerFor(service.url, await service.tokenOf(`${run}-fresh`), dataset.tools);
        const beforeAnswers = await searchAll(fresh, test);
        const before = test.map((query, i) => ndcgOf(beforeAnswers[i]!, query));
        for (const condition of CONDITIONS) {
          const routers: Router[] = [];
          for (let project = 0; project < options.projects; project += 1) {
            routers.push(
              await routerFor(service.url, await service.tokenOf(`${run}-${condition.name}-${project}`), dataset.tools),
            );
          }
          // Day 0: each project's first request, its history; day 1 (25 h on): all of them; a day
          // later the test.
          await teach(routers, train.slice(0, routers.length), dataset, condition.noise);
          now += 25 * HOUR;
          await teach(routers, train, dataset, condition.noise);
          now += 24 * HOUR;
          const after = (await searchAll(fresh, test)).map((answer, i) => ndcgOf(answer, test[i]!));
          const { mean: change, low, high } = pairedBootstrap(before, after);
          for (const router of routers) await router.forget();
          const withdrawn = (await searchAll(fresh, test)).every(
            (answer, i) => JSON.stringify(answer.results) === JSON.stringify(beforeAnswers[i]!.results),
          );
          const result = { dataset: dataset.name, projects: options.projects, k, condition: condition.name };
          results.push({ ...result, before: mean(before), after: mean(after), change, low, high, withdrawn });
          const signed = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(3)}`;
          console.log(
            `  k=${k} ${dataset.name.padEnd(20)} ${condition.name}  ${train.length} reported / ${test.length} tested  ` +
              `${mean(before).toFixed(3)} → ${mean(after).toFixed(3)}  ${signed(change)} [${signed(low)}, ${signed(high)}]  ` +
              `${low > 0 ? 'better' : high < 0 ? 'worse' : 'within noise'}; after every DELETE ${withdrawn ? 'identical to before' : 'DIFFERENT from before'}`,
          );
        }
      }
    } finally {
      await service.close();
    }
  }
  return results;
}

const HOUR = 3_600_000;
/**
 * Settings that may be weighed from the environment (docs/ranking.md, "Shared learning across projects").
 * LEARNING_SECRET too: each run otherwise draws its own key, so its own thresholds (k + 1 … k + spread
 * per association), which moved MCPToolBench++ by up to 0.015 between runs of one build; a fixed key
 * compares two builds on the same thresholds.
 */
const WEIGHED = [
  'LEARNING_SECRET',
  'LEARNING_SHARED_THRESHOLD_SPREAD',
  'LEARNING_SHARED_MIN_PROJECT_DAYS',
  'LEARNING_SHARED_MIN_PROJECT_AGE_HOURS',
  'LEARNING_SHARED_HOLD_MINUTES',
  'LEARNING_SHARED_NEW_PER_HOUR',
];

/** The service in this process with shared learning on at this k, learning on the simulation's clock. */
function startService(k: number, clock: () => number) {
  const weighed: Record<string, string> = {};
  for (const name of WEIGHED) if (process.env[name]) weighed[name] = process.env[name];
  return startEvalService(
    {
      LEARNING_SHARED: 'true',
      LEARNING_SHARED_MIN_PROJECTS: String(k),
      LEARNING_SECRET: randomBytes(32).toString('base64url'),
      ...weighed,
    },
    clock,
  );
}
