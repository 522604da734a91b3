// `npm run eval [-- --json FILE] [--html FILE] [--max N] [--only NAME,NAME] [--no-calibration] [--llm] [--feedback [--projects N [--k K,K]]] [--fusion JSON] [--oracle Z,Z] [--lang ja] [--everyday [--languages]] [--without FAMILY,FAMILY]`
// Ranks every sampled query of every dataset in ../shared/bench with each ranker and prints NDCG@10,
// Recall@5/10/40 and MRR per dataset, the average over datasets, and each ranker's change relative to
// the first (the plain BM25 baseline), each later ranker's NDCG@10 change against ours with a paired
// bootstrap interval, then the calibration report. Our ranker's row also shows what
// the LLM stage's prompt would hold at LLM_PROMPT_TOKEN_BUDGET (candidate recall vs the lexical top-k of
// the same size, prompt tokens); `--llm` adds the LLM stage itself against LLM_BASE_URL / LLM_MODEL.
// `--feedback` measures learning from use instead (eval/feedback.ts), on all of each set's requests
// unless --max is given. `--everyday` ranks the team's everyday requests instead (eval/everyday.ts), with
// an ablation row per rule family (with `--languages`, the everyday table per language instead:
// eval/everyday-languages.ts); `--without a,b` runs our ranker ("ours") with those rule families
// left out (RULE_FAMILIES in core) and adds "all-on" (every family) after it, so the NDCG@10 change
// section gives what the families add on the public sets, with paired intervals.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { calibrationReport, printCalibration } from './calibration.js';
import { loadDatasets } from './datasets.js';
import { METRICS, pairedBootstrap, scoreQuery, type Metric } from './metrics.js';
import { llmRankerFromEnv, withPromptColumns } from './llm-rankers.js';
import { allRulesRanker, defaultRankers, winkQueryRanker, type RankerVariant } from './rankers.js';
import { fusedRanker, semanticRankers } from './semantic-rankers.js';
import { runFeedbackEval } from './feedback.js';
import { runSharedFeedbackEval } from './shared-feedback.js';
import { runCrossLingualEval } from './cross-lingual.js';
import { runEverydayEval } from './everyday.js';
import { runEverydayLanguagesEval } from './everyday-languages.js';
import { writeHtmlReport } from './html-report.js';
import { loadLanguages, rankTools, RULE_FAMILIES, type RuleFamily } from '../packages/core/src/index.js';
import { DEFAULT_FUSION, type FusionOptions } from '../src/semantic/fuse-hybrid.js';

const { values } = parseArgs({
  options: {
    json: { type: 'string' },
    // The results as one self-contained HTML page (eval/html-report.ts).
    html: { type: 'string' },
    max: { type: 'string' },
    only: { type: 'string' },
    'no-calibration': { type: 'boolean', default: false },
    // Also measure our ranker with wink-nlp query preprocessing (the README's wink-nlp numbers).
    wink: { type: 'boolean', default: false },
    // Also run the LLM rerank stage against the endpoint in LLM_BASE_URL / LLM_MODEL (LLM_API_KEY).
    llm: { type: 'boolean', default: false },
    // The semantic and fused rankers (embedded encoder; with --embeddings the endpoint in EMBEDDINGS_*).
    'no-semantic': { type: 'boolean', default: false },
    embeddings: { type: 'boolean', default: false },
    // Fusion settings to compare, as JSON objects over DEFAULT_FUSION, e.g. '[{"weight":0.3}]' (tuning).
    fusion: { type: 'string' },
    // Learning from use through the HTTP API (eval/feedback.ts) instead of the rankers.
    feedback: { type: 'boolean', default: false },
    // With --feedback: shared learning across this many simulated projects (eval/shared-feedback.ts).
    projects: { type: 'string' },
    // With --projects: only these k (LEARNING_SHARED_MIN_PROJECTS), e.g. `--k 5`; default 1,3,5.
    k: { type: 'string' },
    // Ceiling sweep: the fused ranking with the gold tools' similarities raised by these many standard
    // deviations, e.g. '2,4' (what a stronger encoder would give; reads the labels, so not a ranker).
    oracle: { type: 'string' },
    // The team's translations of requests into this language beside their English originals (eval/cross-lingual.ts).
    lang: { type: 'string' },
    // The team's everyday requests on four lists, with the rule-family ablation (eval/everyday.ts).
    everyday: { type: 'boolean', default: false },
    // With --everyday: twelve of them in nine languages beside English (eval/everyday-languages.ts).
    languages: { type: 'boolean', default: false },
    // Rule families our ranker leaves out, e.g. 'verbs,nouns' (measuring a family on the public sets).
    without: { type: 'string' },
  },
});

// Requests in other languages are read as the service reads them: with every language loaded.
await loadLanguages();

const without = values.without?.split(',').filter((family) => family !== '') as RuleFamily[] | undefined;
const unknownFamilies = without?.filter((family) => !(RULE_FAMILIES as readonly string[]).includes(family)) ?? [];
if (unknownFamilies.length > 0)
  throw new Error(
    `--without: unknown rule famil(ies) ${unknownFamilies.join(', ')}; known: ${RULE_FAMILIES.join(', ')}`,
  );

if (values.feedback && values.projects !== undefined) {
  const results = await runSharedFeedbackEval({
    projects: Number(values.projects) || 30,
    only: values.only?.split(','),
    max: values.max === undefined ? undefined : Number(values.max),
    ks: values.k?.split(',').map(Number),
  });
  if (values.json) writeFileSync(values.json, `${JSON.stringify({ sharedFeedback: results }, null, 2)}\n`);
  process.exit(0);
}
if (values.lang) {
  const rows = await runCrossLingualEval(values.lang);
  if (values.json) writeFileSync(values.json, `${JSON.stringify({ crossLingual: rows }, null, 2)}\n`);
  process.exit(0);
}

if (values.everyday && values.languages) {
  const rows = runEverydayLanguagesEval();
  if (values.json) writeFileSync(values.json, `${JSON.stringify({ everydayLanguages: rows }, null, 2)}\n`);
  process.exit(0);
}

if (values.everyday) {
  const report = runEverydayEval();
  if (values.json) writeFileSync(values.json, `${JSON.stringify({ everyday: report }, null, 2)}\n`);
  process.exit(0);
}

if (values.feedback) {
  const results = await runFeedbackEval({
    only: values.only?.split(','),
    max: values.max === undefined ? undefined : Number(values.max),
  });
  if (values.json) writeFileSync(values.json, `${JSON.stringify({ feedback: results }, null, 2)}\n`);
  if (values.html) writeHtmlReport(values.html, { learning: results, command: process.argv.slice(2).join(' ') });
  process.exit(0);
}
const maxQueries = Number(values.max ?? 200);

type Row = Record<string, number>;
interface DatasetResult {
  dataset: string;
  queries: number;
  totalQueries: number;
  tools: number;
  byRanker: Record<string, Row>;
}

/** NDCG@10 of every query, by dataset and ranker, for the intervals of the changes (not in --json). */
const ndcgByQuery = new Map<string, Record<string, number[]>>();

async function evaluate(rankers: RankerVariant[]): Promise<DatasetResult[]> {
  const datasets = loadDatasets({ maxQueries, only: values.only?.split(',') });
  const results: DatasetResult[] = [];
  for (const dataset of datasets) {
    if (dataset.queries.length === 0) continue;
    const byRanker: Record<string, Row> = {};
    const perQuery: Record<string, number[]> = {};
    ndcgByQuery.set(dataset.name, perQuery);
    for (const ranker of rankers) {
      const ndcgs: number[] = (perQuery[ranker.name] = []);
      await ranker.prepare?.(dataset);
      const sums: Row = {};
      const started = performance.now();
      for (const query of dataset.queries) {
        const output = await ranker.rank(query, dataset.tools);
        const scores: Row = { ...scoreQuery(output.ranked, query.relevant), ...output.extras };
        ndcgs.push(scores['NDCG@10']!);
        for (const [key, value] of Object.entries(scores)) sums[key] = (sums[key] ?? 0) + value;
      }
      const row: Row = {};
      for (const [key, value] of Object.entries(sums)) row[key] = value / dataset.queries.length;
      row['ms/query'] = (performance.now() - started) / dataset.queries.length;
      byRanker[ranker.name] = row;
    }
    results.push({
      dataset: dataset.name,
      queries: dataset.queries.length,
      totalQueries: dataset.totalQueries,
      tools: dataset.tools.length,
      byRanker,
    });
    printDataset(results.at(-1)!, rankers);
  }
  return results;
}

const fmt = (value: number | undefined): string => (value === undefined ? '   -  ' : value.toFixed(3).padStart(6));
const pct = (ours: number, base: number): string =>
  (base > 0 ? `${(((ours - base) / base) * 100).toFixed(1)}%` : 'n/a').padStart(7);

function columns(rankers: RankerVariant[], results: DatasetResult[]): string[] {
  const extras = new Set<string>();
  for (const result of results)
    for (const row of Object.values(result.byRanker)) for (const key of Object.keys(row)) extras.add(key);
  for (const metric of METRICS) extras.delete(metric);
  extras.delete('ms/query');
  return [...METRICS, ...extras];
}

function printDataset(result: DatasetResult, rankers: RankerVariant[]): void {
  console.log(`\n${result.dataset}  (${result.queries} of ${result.totalQueries} queries, ${result.tools} tools)`);
  const cols = columns(rankers, [result]);
  console.log(`  ${'ranker'.padEnd(8)} ${cols.map((c) => c.padStart(8)).join(' ')}   ms/query`);
  for (const ranker of rankers) {
    const row = result.byRanker[ranker.name]!;
    console.log(
      `  ${ranker.name.padEnd(8)} ${cols.map((c) => fmt(row[c]).padStart(8)).join(' ')}   ${row['ms/query']!.toFixed(1).padStart(8)}`,
    );
  }
}

function summarize(results: DatasetResult[], rankers: RankerVariant[]): Record<string, Row> {
  const average: Record<string, Row> = {};
  for (const ranker of rankers) {
    const row: Row = {};
    for (const metric of METRICS)
      row[metric] = results.reduce((sum, r) => sum + (r.byRanker[ranker.name]?.[metric] ?? 0), 0) / results.length;
    average[ranker.name] = row;
  }
  const [base, ...others] = rankers;
  console.log('\n== Summary (per dataset: ours vs bm25, relative change) ==');
  console.log(`  ${'dataset'.padEnd(20)} ${METRICS.map((m) => `${m} bm25 → ours`.padStart(24)).join(' ')}`);
  for (const result of results) {
    for (const other of others) {
      const b = result.byRanker[base!.name]!;
      const o = result.byRanker[other.name]!;
      console.log(
        `  ${result.dataset.padEnd(20)} ${METRICS.map((m) => `${fmt(b[m])} → ${fmt(o[m])} ${pct(o[m]!, b[m]!)}`.padStart(24)).join(' ')}`,
      );
    }
  }
  for (const other of others) {
    const b = average[base!.name]!;
    const o = average[other.name]!;
    console.log(
      `  ${'AVERAGE'.padEnd(20)} ${METRICS.map((m) => `${fmt(b[m])} → ${fmt(o[m])} ${pct(o[m]!, b[m]!)}`.padStart(24)).join(' ')}`,
    );
    const relative = METRICS.map((m: Metric) => {
      const changes = results.map(
        (r) => (r.byRanker[other.name]![m]! - r.byRanker[base!.name]![m]!) / (r.byRanker[base!.name]![m]! || 1),
      );
      return `${m} ${((changes.reduce((s, c) => s + c, 0) / changes.length) * 100).toFixed(1)}%`;
    });
    console.log(`  mean of per-dataset relative changes (${other.name} vs ${base!.name}): ${relative.join(', ')}`);
  }
  return average;
}

/**
 * Each ranker after ours against ours, per dataset: the NDCG@10 change with its paired bootstrap 95 %
 * interval over the dataset's queries, so "within noise" is a measurement (an interval containing 0).
 */
function printChangeIntervals(results: DatasetResult[], rankers: RankerVariant[]): void {
  const [, ours, ...others] = rankers;
  if (ours === undefined || others.length === 0) return;
  console.log(`\n== NDCG@10 change vs ${ours.name} per dataset (paired bootstrap 95 % interval over queries) ==`);
  for (const other of others) {
    for (const result of results) {
      const perQuery = ndcgByQuery.get(result.dataset)!;
      const { mean, low, high } = pairedBootstrap(perQuery[ours.name]!, perQuery[other.name]!);
      const verdict = low > 0 ? 'better' : high < 0 ? 'worse' : 'within noise';
      const signed = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(3)}`;
      console.log(
        `  ${other.name.padEnd(8)} ${result.dataset.padEnd(20)} ${signed(mean)}  [${signed(low)}, ${signed(high)}]  ${verdict}`,
      );
    }
  }
}

/**
 * The two states of a list, per dataset: its first search (lexical: `ours`) and once its vectors are
 * ready (warm: `fused`), each with the LLM prompt's candidate recall at the budget; the change is
 * paired over the queries. Later fusion and oracle variants are compared with the warm default.
 */
function printStates(results: DatasetResult[], rankers: RankerVariant[]): void {
  const names = rankers.map((ranker) => ranker.name);
  if (!names.includes('fused')) return;
  const signed = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(3)}`;
  const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / Math.max(values.length, 1);
  console.log('\n== First search (lexical) vs warm (embedded), NDCG@10 and candidate recall at the prompt budget ==');
  console.log(`  ${'dataset'.padEnd(20)} first  warm   change [95 % interval]       cand first  cand warm`);
  for (const result of results) {
    const perQuery = ndcgByQuery.get(result.dataset)!;
    const { mean: change, low, high } = pairedBootstrap(perQuery.ours!, perQuery.fused!);
    const first = result.byRanker.ours!;
    const warm = result.byRanker.fused!;
    console.log(
      `  ${result.dataset.padEnd(20)} ${fmt(first['NDCG@10'])} ${fmt(warm['NDCG@10'])} ${signed(change)} [${signed(low)}, ${signed(high)}]   ${fmt(first['cand recall'])}     ${fmt(warm['cand recall'])}`,
    );
  }
  console.log(
    `  ${'AVERAGE'.padEnd(20)} ${fmt(mean(results.map((r) => r.byRanker.ours!['NDCG@10']!)))} ${fmt(mean(results.map((r) => r.byRanker.fused!['NDCG@10']!)))}`,
  );
  for (const other of names.slice(names.indexOf('fused') + 1)) {
    if (!results.every((r) => ndcgByQuery.get(r.dataset)![other])) continue;
    const cells = results.map((r) => {
      const {
        mean: change,
        low,
        high,
      } = pairedBootstrap(ndcgByQuery.get(r.dataset)!.fused!, ndcgByQuery.get(r.dataset)![other]!);
      return `${r.dataset} ${signed(change)} [${signed(low)}, ${signed(high)}]`;
    });
    const average = mean(results.map((r) => r.byRanker[other]!['NDCG@10']!));
    console.log(`  ${other} vs fused: average ${average.toFixed(3)}; ${cells.join('; ')}`);
  }
}

const started = performance.now();
const [baseline, ours] = defaultRankers({ without });
if (without) console.log(`ours leaves out rule families: ${without.join(', ')}`);
const promptBudget = process.env.LLM_PROMPT_TOKEN_BUDGET ? Number(process.env.LLM_PROMPT_TOKEN_BUDGET) : undefined;
const semantic = values['no-semantic'] ? undefined : await semanticRankers(values.embeddings, process.env);
const fusionVariants = (JSON.parse(values.fusion ?? '[]') as Partial<FusionOptions>[]).map((options, i) =>
  fusedRanker(semantic!.index, { ...DEFAULT_FUSION, ...options }, `fused${i + 1}`),
);
const oracleVariants = (values.oracle?.split(',') ?? []).map((z) =>
  fusedRanker(semantic!.index, DEFAULT_FUSION, `oracle+${z}`, Number(z)),
);
const rankers: RankerVariant[] = [
  baseline!,
  // The prompt's candidates come from the same ranking as ours, families left out included.
  withPromptColumns(
    ours!,
    promptBudget,
    without ? (query, tools, cache) => rankTools({ query, tools }, { cache, without }) : undefined,
  ),
  // With --without, ours with every family too: its interval against ours is what the families add.
  ...(without ? [allRulesRanker()] : []),
  ...(semantic
    ? [
        semantic.semantic,
        withPromptColumns(semantic.fused, promptBudget, (query, tools) => semantic.fused.rankedTools(query, tools)),
      ]
    : []),
  ...fusionVariants,
  ...oracleVariants,
  ...(values.wink ? [await winkQueryRanker()] : []),
  ...(values.llm ? [llmRankerFromEnv(process.env)] : []),
];
const results = await evaluate(rankers);
semantic?.index.vectors.save();
const average = summarize(results, rankers);
printChangeIntervals(results, rankers);
printStates(results, rankers);
const calibration = values['no-calibration']
  ? undefined
  : [
      ...(await calibrationReport()),
      ...(semantic
        ? await calibrationReport(async (queries, catalog, leaveOut) => {
            await semantic.fused.prepare!(catalog);
            const tops: number[] = [];
            for (const [i, query] of queries.entries())
              tops.push((await semantic.fused.rankedTools(query, catalog.tools, [], leaveOut?.[i]))[0]?.relevance ?? 0);
            return tops;
          }, 'fused ')
        : []),
    ];
if (calibration) printCalibration(calibration);
console.log(`\neval took ${((performance.now() - started) / 1000).toFixed(1)} s`);
if (values.json) {
  writeFileSync(
    values.json,
    `${JSON.stringify({ maxQueriesPerDataset: maxQueries, without, results, average, calibration }, null, 2)}\n`,
  );
  console.log(`wrote ${values.json}`);
}
if (values.html)
  writeHtmlReport(values.html, { results, ndcgByQuery, calibration, command: process.argv.slice(2).join(' ') });
