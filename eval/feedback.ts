// `npm run eval -- --feedback [--only NAME,NAME] [--max N] [--json FILE]`: learning from use, measured
// through the HTTP API. The service is started in this process on a loopback port (BM25-only, no
// semantic stage, no limits) and driven as a router drives it: each dataset's requests are split in
// two by a stable hash of their id; every request of the first half is searched and its gold tools
// reported as `succeeded` by the search's requestId (one report per search); the second half is the
// test, searched by a project that never reported (before) and by the one that did (after). The same
// again with noisy reports: 30 % name a random wrong tool instead. NDCG@10 before/after with the
// paired bootstrap interval over the test requests; then DELETE, and the test half must rank
// byte-identically to before.
import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { buildApp } from '../src/app.js';
import { parseConfig } from '../src/config/index.js';
import type { SearchResponse, ToolInfo } from '../packages/core/src/index.js';
import { loadDatasets, type Dataset, type EvalQuery } from './datasets.js';
import { ndcgAt, pairedBootstrap } from './metrics.js';
import { hash53 } from './sample-hash.js';

/** Share of reports that name a random wrong tool in the noisy run (the 30 %). */
export const NOISE = 0.3;
export const SPLIT_SEED = 11;

interface Condition {
  name: 'clean' | 'noisy';
  noise: number;
}
const CONDITIONS: Condition[] = [
  { name: 'clean', noise: 0 },
  { name: 'noisy', noise: NOISE },
];

interface FeedbackResult {
  dataset: string;
  trainRequests: number;
  testRequests: number;
  reports: number;
  before: number;
  byCondition: Record<string, { after: number; change: number; low: number; high: number; forgotten: boolean }>;
}

/** Runs the simulation on every dataset with queries; prints one line per dataset and condition. */
export async function runFeedbackEval(options: {
  only?: string[] | undefined;
  max?: number | undefined;
}): Promise<FeedbackResult[]> {
  const service = await startEvalService({
    ...(process.env.FEEDBACK_HALF_LIFE_DAYS ? { FEEDBACK_HALF_LIFE_DAYS: process.env.FEEDBACK_HALF_LIFE_DAYS } : {}),
    ...(process.env.FEEDBACK_MIN_REPORTS ? { FEEDBACK_MIN_REPORTS: process.env.FEEDBACK_MIN_REPORTS } : {}),
    ...(process.env.FEEDBACK_MAX_BOOST ? { FEEDBACK_MAX_BOOST: process.env.FEEDBACK_MAX_BOOST } : {}),
  });
  const { url, tokenOf } = service;

  const results: FeedbackResult[] = [];
  try {
    const datasets = loadDatasets({
      ...(options.only ? { only: options.only } : {}),
      ...(options.max ? { maxQueries: options.max } : {}),
    });
    console.log(
      `== Learning from use through the HTTP API (NDCG@10 of the test half; paired bootstrap 95 % interval) ==`,
    );
    for (const dataset of datasets) {
      if (dataset.queries.length === 0) continue;
      const train = dataset.queries.filter((query) => hash53(query.id, SPLIT_SEED) % 2 === 0);
      const test = dataset.queries.filter((query) => hash53(query.id, SPLIT_SEED) % 2 === 1);
      const run = `${dataset.name}-${Date.now()}`;
      const fresh = await routerFor(url, await tokenOf(`${run}-none`), dataset.tools);
      const beforeAnswers = await searchAll(fresh, test);
      const before = test.map((query, i) => ndcgOf(beforeAnswers[i]!, query));
      const result: FeedbackResult = {
        dataset: dataset.name,
        trainRequests: train.length,
        testRequests: test.length,
        reports: train.reduce((sum, query) => sum + query.relevant.length, 0),
        before: mean(before),
        byCondition: {},
      };
      for (const condition of CONDITIONS) {
        const router = await routerFor(url, await tokenOf(`${run}-${condition.name}`), dataset.tools);
        await teach([router], train, dataset, condition.noise);
        const after = (await searchAll(router, test)).map((answer, i) => ndcgOf(answer, test[i]!));
        const { mean: change, low, high } = pairedBootstrap(before, after);
        await router.forget();
        const forgottenAnswers = await searchAll(router, test);
        const forgotten = forgottenAnswers.every(
          (answer, i) => JSON.stringify(answer.results) === JSON.stringify(beforeAnswers[i]!.results),
        );
        result.byCondition[condition.name] = { after: mean(after), change, low, high, forgotten };
        const signed = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(3)}`;
        console.log(
          `  ${dataset.name.padEnd(20)} ${condition.name}  ${train.length} reported / ${test.length} tested  ` +
            `${result.before.toFixed(3)} → ${mean(after).toFixed(3)}  ${signed(change)} [${signed(low)}, ${signed(high)}]  ` +
            `${low > 0 ? 'better' : high < 0 ? 'worse' : 'within noise'}; after DELETE ${forgotten ? 'identical to before' : 'DIFFERENT from before'}`,
        );
      }
      results.push(result);
    }
  } finally {
    await service.close();
  }
  return results;
}

export interface Router {
  search(query: string[]): Promise<SearchResponse>;
  report(events: Array<{ requestId: string; toolKey: string; outcome: 'succeeded' }>): Promise<void>;
  forget(): Promise<void>;
}

/** A router of one project: sends the list in full once, then by reference (meta.toolSet). */
export async function routerFor(url: string, token: string, tools: ToolInfo[]): Promise<Router> {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  let toolSet: string | undefined;
  const call = async (path: string, method: string, body?: unknown) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: body === undefined ? { authorization: headers.authorization } : headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return response.status === 204 ? undefined : ((await response.json()) as unknown);
  };
  return {
    async search(query) {
      const answer = (await call('/search', 'POST', {
        query,
        maxResults: 10,
        ...(toolSet ? { toolSet } : { tools }),
      })) as SearchResponse;
      toolSet ??= answer.meta.toolSet;
      return answer;
    },
    async report(events) {
      await call('/feedback', 'POST', { events });
    },
    async forget() {
      await call('/feedback', 'DELETE');
    },
  };
}

/**
 * The first half: training request i searched by router i mod N (one router: all of them), then its
 * gold tools reported by the search's requestId (`noise` of them naming a random wrong tool instead).
 */
export async function teach(
  routers: readonly Router[],
  train: EvalQuery[],
  dataset: Dataset,
  noise: number,
): Promise<void> {
  let seed = 12_345;
  // A seeded generator (LCG), so a noisy run names the same wrong tools every time.
  const random = () => (seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32;
  for (const [i, query] of train.entries()) {
    const router = routers[i % routers.length]!;
    const { meta } = await router.search(query.query);
    const events = query.relevant.map((gold) => {
      let toolKey = gold;
      if (random() < noise) {
        do toolKey = dataset.tools[Math.floor(random() * dataset.tools.length)]!.toolKey;
        while (query.relevant.includes(toolKey));
      }
      return { requestId: meta.requestId, toolKey, outcome: 'succeeded' as const };
    });
    await router.report(events);
  }
}

export async function searchAll(router: Router, queries: EvalQuery[]): Promise<SearchResponse[]> {
  const answers: SearchResponse[] = [];
  for (const query of queries) answers.push(await router.search(query.query));
  return answers;
}

export const ndcgOf = (answer: SearchResponse, query: EvalQuery) =>
  ndcgAt(
    answer.results.map((result) => result.toolKey),
    new Set(query.relevant),
    10,
  );
export const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / Math.max(values.length, 1);

/**
 * The service in this process for the learning evals: production auth with a fresh key, BM25 only, no
 * rate or work limits (one process plays every project), `env` on top; `clock`: learning's time, for
 * a simulation that ages its projects (shared-feedback.ts).
 */
export async function startEvalService(env: Record<string, string>, clock?: () => number) {
  const secret = randomBytes(32).toString('base64url');
  const config = parseConfig({
    NODE_ENV: 'production',
    AUTH_JWT_SECRET: secret,
    EMBEDDINGS: 'off',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '0',
    MAX_IN_FLIGHT_PER_PROJECT: '0',
    RATE_LIMIT_WORK_PER_MINUTE: '0',
    RATE_LIMIT_MB_PER_MINUTE: '0',
    CACHE_MEMORY_MB: '1024',
    CACHE_PROJECT_SHARE: '1',
    ...env,
  });
  const app = buildApp(config, clock ? { learningClock: clock } : {});
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  const key = new TextEncoder().encode(secret);
  return {
    url: `http://127.0.0.1:${address.port}/v1/catalog`,
    tokenOf: (projectId: string) =>
      new SignJWT({ projectId }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('2h').sign(key),
    close: () => app.close(),
  };
}
