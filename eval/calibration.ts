// Is relevance calibrated? Top-1 relevance of our ranker on (a) each dataset's own queries, (b) queries
// from one dataset against another dataset's catalog, which cannot serve them, and (c) nonsense
// requests. A calibrated ranker keeps (b) and (c) low while (a) stays high; score / maxScore would
// show 1.0 everywhere.
import { createRankCache, rankTools } from '../packages/core/src/index.js';
import { hash53 } from './sample-hash.js';
import { loadDatasets, sampleQueries, type Dataset } from './datasets.js';

const SAMPLE = 100;
// Query dataset -> a catalog from another domain that cannot serve it (ML models, math functions,
// RapidAPI apps, MCP dev tools, personal-assistant APIs). Not every pairing is a true no-fit (API-Bank's
// calculator requests are served by Toolink's math functions), so these pairs were chosen for that. The
// broad smithery_catalog is not used here:
// its 9,970 tools (calculators, search, ...) do serve many requests of the other datasets.
const NO_FIT_PAIRS: Array<[string, string]> = [
  ['toolret_gorilla_hf', 'mcptoolbench_pp'],
  ['toolret_toolink', 'mcptoolbench_pp'],
  ['toollens', 'toolret_toolink'],
  ['mcptoolbench_pp', 'toolret_gorilla_hf'],
  ['toolret_apibank', 'toolret_gorilla_hf'],
];

export interface Distribution {
  label: string;
  requests: number;
  mean: number;
  p50: number;
  p90: number;
  max: number;
  /** Share of requests whose top relevance is at least 0.5. */
  atLeastHalf: number;
}

function distribution(label: string, tops: number[]): Distribution {
  const sorted = [...tops].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return {
    label,
    requests: tops.length,
    mean: tops.reduce((s, v) => s + v, 0) / Math.max(tops.length, 1),
    p50: at(0.5),
    p90: at(0.9),
    max: sorted.at(-1) ?? 0,
    atLeastHalf: tops.filter((v) => v >= 0.5).length / Math.max(tops.length, 1),
  };
}

/** Top-1 relevance per query of a ranker over a dataset's catalog (ours by default; eval/run.ts adds fused). */
export type TopRelevances = (queries: string[][], catalog: Dataset) => Promise<number[]>;

const lexicalTops: TopRelevances = async (queries, { tools }) => {
  const cache = createRankCache();
  return queries.map((query) => rankTools({ query, tools }, { cache, limit: 1 })[0]?.relevance ?? 0);
};

/** Deterministic pseudo-words: letters drawn from a hash, so no catalog contains them by design. */
function nonsenseQueries(count: number): string[][] {
  const letters = 'abcdefghijklmnoprstuvz';
  return Array.from({ length: count }, (_, q) => {
    const words = Array.from({ length: 3 + (q % 4) }, (_, w) => {
      let h = hash53(`nonsense-${q}-${w}`);
      let word = '';
      for (let i = 0; i < 5 + (h % 4); i += 1) {
        word += letters[h % letters.length];
        h = Math.floor(h / letters.length);
      }
      return word;
    });
    return [words.join(' ')];
  });
}

export async function calibrationReport(topRelevances: TopRelevances = lexicalTops, label = ''): Promise<Distribution[]> {
  const datasets = new Map<string, Dataset>(loadDatasets({ maxQueries: SAMPLE }).map((d) => [d.name, d]));
  const report: Distribution[] = [];
  for (const dataset of datasets.values()) {
    if (dataset.queries.length === 0) continue;
    report.push(distribution(`${label}fit      ${dataset.name}`, await topRelevances(dataset.queries.map((q) => q.query), dataset)));
  }
  for (const [from, to] of NO_FIT_PAIRS) {
    const source = datasets.get(from);
    const target = datasets.get(to);
    if (!source || !target) continue;
    const queries = sampleQueries(source.queries, SAMPLE).map((q) => q.query);
    report.push(distribution(`${label}no-fit   ${from} → ${to}`, await topRelevances(queries, target)));
  }
  const nonsense = nonsenseQueries(SAMPLE);
  for (const name of ['livemcpbench', 'toolret_apigen', 'smithery_catalog']) {
    const target = datasets.get(name);
    if (target) report.push(distribution(`${label}nonsense → ${name}`, await topRelevances(nonsense, target)));
  }
  return report;
}

export function printCalibration(report: Distribution[]): void {
  console.log('\n== Calibration: top-1 relevance per request (ours) ==');
  console.log(`  ${'requests'.padEnd(48)}     n   mean    p50    p90    max  ≥0.5`);
  for (const d of report) {
    console.log(
      `  ${d.label.padEnd(48)} ${String(d.requests).padStart(5)} ${[d.mean, d.p50, d.p90, d.max].map((v) => v.toFixed(3).padStart(6)).join(' ')} ${(d.atLeastHalf * 100).toFixed(0).padStart(4)}%`,
    );
  }
}
