// Is relevance calibrated? Top-1 relevance of our ranker on (a) each dataset's own queries, (b) the same
// queries against their own catalog without their gold tools (the near miss), (c) queries from one
// dataset against another dataset's catalog, which cannot serve them, and (d) nonsense requests. A calibrated ranker keeps (b) and (c) low while (a) stays high; score / maxScore would
// show 1.0 everywhere.
import { createRankCache, rankTools } from '../packages/core/src/index.js';
import { hash53 } from './sample-hash.js';
import { loadDatasets, sampleQueries, type Dataset } from './datasets.js';
import { readVerdict } from './no-fit-reading.js';

const SAMPLE = 100;
// Query dataset -> a catalog from another domain (ML models, math functions, RapidAPI apps, MCP dev
// tools, personal-assistant APIs). Not every pairing is a true no-fit (API-Bank's calculator requests are
// served by Toolink's math functions), so each request is checked against the catalog (checkedNoFit),
// and every pair that check keeps was then read by hand (eval/no-fit-reading.ts).
// The broad smithery_catalog is not used here: its 9,970 tools (calculators, search, ...) do serve many
// requests of the other datasets.
const NO_FIT_PAIRS: Array<[string, string]> = [
  ['toolret_gorilla_hf', 'mcptoolbench_pp'],
  ['toolret_toolink', 'mcptoolbench_pp'],
  ['toollens', 'toolret_toolink'],
  ['mcptoolbench_pp', 'toolret_gorilla_hf'],
  ['toolret_apibank', 'toolret_gorilla_hf'],
  ['toolbench_stb', 'toolret_toolink'],
  ['livemcpbench', 'toolret_toolink'],
];
/** Requests per pair in the checked no-fit set (7 pairs: up to 84 request/catalog pairs). */
const NO_FIT_PER_PAIR = 12;
/**
 * A request's gold tool "has a counterpart" in the other catalog when the gold tool's own name and
 * description, searched there, find a tool covering this much of it: then that catalog may serve the
 * request after all, and the pair is left out of the no-fit set.
 */
const COUNTERPART_RELEVANCE = 0.5;

/** A distribution of top-1 relevance over a set of requests (the calibration report's rows). */
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

/**
 * Top-1 relevance per query of a ranker over a dataset's catalog (ours by default; eval/run.ts adds fused).
 * With `leaveOut`, query i is ranked against the catalog without the tools keyed in `leaveOut[i]`.
 */
type TopRelevances = (
  queries: string[][],
  catalog: Dataset,
  leaveOut?: ReadonlyArray<ReadonlySet<string>>,
) => Promise<number[]>;

const lexicalTops: TopRelevances = async (queries, { tools }, leaveOut) => {
  const cache = createRankCache();
  return queries.map((query, i) => {
    const without = leaveOut?.[i];
    const list = without ? tools.filter((tool) => !without.has(tool.toolKey)) : tools;
    return rankTools({ query, tools: list }, { cache, limit: 1 })[0]?.relevance ?? 0;
  });
};

/** The mean of several distributions' means (and of their shares at ≥ 0.5): one figure per dataset. */
function meanOfMeans(label: string, parts: Distribution[]): Distribution {
  const summary = distribution(label, []);
  summary.requests = parts.reduce((sum, d) => sum + d.requests, 0);
  summary.mean = parts.reduce((sum, d) => sum + d.mean, 0) / Math.max(parts.length, 1);
  summary.atLeastHalf = parts.reduce((sum, d) => sum + d.atLeastHalf, 0) / Math.max(parts.length, 1);
  summary.p50 = summary.p90 = summary.max = Number.NaN; // a mean of means has no quantiles
  return summary;
}

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

/** A request paired with a catalog of another domain that was checked to hold none of its gold tools' kind. */
interface NoFitPair {
  from: string;
  to: string;
  /** The request's id in its dataset (what eval/no-fit-reading.ts records). */
  id: string;
  query: string[];
}

interface NoFitSet {
  /** Pairs the check kept and a reader judged no-fit. */
  pairs: NoFitPair[];
  /** Pairs the check left out (a gold tool has a counterpart in the catalog). */
  dropped: number;
  /** Pairs the check kept that the reading judged to fit after all (left out). */
  readFits: number;
  /** Pairs the check kept that were not read (left out until someone reads them). */
  unread: number;
}

/**
 * The no-fit set, built at run time from ../shared/bench: per NO_FIT_PAIRS entry, the first
 * NO_FIT_PER_PAIR sampled requests whose every gold tool, searched in the other catalog by its own name
 * and description, finds nothing covering it (COUNTERPART_RELEVANCE). The check reads the catalog, not
 * the request's own ranking, so it does not choose the requests the ranker already scores low. Of
 * those, only the pairs read by hand as no-fit (eval/no-fit-reading.ts) are kept.
 */
export function checkedNoFit(datasets: ReadonlyMap<string, Dataset>): NoFitSet {
  const pairs: NoFitPair[] = [];
  let dropped = 0;
  let readFits = 0;
  let unread = 0;
  for (const [from, to] of NO_FIT_PAIRS) {
    const source = datasets.get(from);
    const target = datasets.get(to);
    if (!source || !target) continue;
    const byKey = new Map(source.tools.map((tool) => [tool.toolKey, tool]));
    const cache = createRankCache();
    let kept = 0;
    for (const request of sampleQueries(source.queries, SAMPLE)) {
      if (kept >= NO_FIT_PER_PAIR) break;
      const served = request.relevant.some((key) => {
        const gold = byKey.get(key);
        if (gold === undefined) return false;
        const text = `${gold.toolName.replace(/[_\-./:]+/g, ' ')} ${String(gold.description ?? '').slice(0, 300)}`;
        return (
          (rankTools({ query: [text], tools: target.tools }, { cache, limit: 1 })[0]?.relevance ?? 0) >=
          COUNTERPART_RELEVANCE
        );
      });
      if (served) {
        dropped += 1;
        continue;
      }
      kept += 1;
      const verdict = readVerdict(from, to, request.id);
      if (verdict === 'no-fit') pairs.push({ from, to, id: request.id, query: request.query });
      else if (verdict === 'fits') readFits += 1;
      else unread += 1;
    }
  }
  return { pairs, dropped, readFits, unread };
}

export async function calibrationReport(
  topRelevances: TopRelevances = lexicalTops,
  label = '',
): Promise<Distribution[]> {
  const datasets = new Map<string, Dataset>(loadDatasets({ maxQueries: SAMPLE }).map((d) => [d.name, d]));
  const report: Distribution[] = [];
  for (const dataset of datasets.values()) {
    if (dataset.queries.length === 0) continue;
    report.push(
      distribution(
        `${label}fit      ${dataset.name}`,
        await topRelevances(
          dataset.queries.map((q) => q.query),
          dataset,
        ),
      ),
    );
  }
  const fit = report.slice();
  // The in-domain near miss: each request against its own catalog without its gold tools. The tools
  // left are of the right domain and share the request's words, but none does what it asks: what a
  // router sees when the tool it needs is not installed.
  const nearMiss: Distribution[] = [];
  for (const dataset of datasets.values()) {
    if (dataset.queries.length === 0) continue;
    const tops = await topRelevances(
      dataset.queries.map((q) => q.query),
      dataset,
      dataset.queries.map((q) => new Set(q.relevant)),
    );
    nearMiss.push(distribution(`${label}near-miss ${dataset.name}`, tops));
  }
  report.push(...nearMiss);
  const { pairs, dropped, readFits, unread } = checkedNoFit(datasets);
  const noFit: number[] = [];
  for (const [from, to] of NO_FIT_PAIRS) {
    const target = datasets.get(to);
    const queries = pairs.filter((pair) => pair.from === from && pair.to === to).map((pair) => pair.query);
    if (!target || queries.length === 0) continue;
    const tops = await topRelevances(queries, target);
    noFit.push(...tops);
    report.push(distribution(`${label}no-fit   ${from} → ${to}`, tops));
  }
  // The two figures routers set `minRelevance` by: answerable requests (mean of the datasets' means) and
  // checked no-fit pairs (mean over all pairs).
  report.push(meanOfMeans(`${label}ANSWERABLE (mean of ${fit.length} datasets)`, fit));
  report.push(meanOfMeans(`${label}NEAR-MISS (gold left out; mean of ${nearMiss.length})`, nearMiss));
  // Kept by the check and read as no-fit; left out: by the check, read as fitting, not read.
  report.push(distribution(`${label}NO-FIT (${pairs.length} read; out ${dropped}/${readFits}/${unread})`, noFit));
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
      `  ${d.label.padEnd(48)} ${String(d.requests).padStart(5)} ${[d.mean, d.p50, d.p90, d.max].map((v) => (Number.isNaN(v) ? '-' : v.toFixed(3)).padStart(6)).join(' ')} ${(d.atLeastHalf * 100).toFixed(0).padStart(4)}%`,
    );
  }
  console.log(
    '  NEAR-MISS: own catalog without the gold tools. NO-FIT: pairs kept by the check and read as no-fit; out a/b/c: left out by the check / read as fitting / not read',
  );
}
