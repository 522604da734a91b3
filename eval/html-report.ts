// `npm run eval -- --html FILE`: the eval's results as one self-contained HTML page (inline CSS, no
// script, nothing fetched), to look at rather than read: NDCG@10 per set as bars with their 95 %
// intervals, the first search vs warm and learning before vs after where the run measured them, and the
// calibration's top-relevance distributions (own requests, near miss, no fit). Input types are
// structural, so the writer needs nothing of run.ts; test/browser/eval-report.test.ts opens a report.
import { writeFileSync } from 'node:fs';
import { pairedBootstrap } from './metrics.js';
import type { Distribution } from './calibration.js';

interface DatasetRow {
  dataset: string;
  queries: number;
  totalQueries: number;
  tools: number;
  byRanker: Record<string, Record<string, number>>;
}

interface LearningRow {
  dataset: string;
  trainRequests: number;
  testRequests: number;
  before: number;
  byCondition: Record<string, { after: number; change: number; low: number; high: number; forgotten: boolean }>;
}

interface HtmlReportInput {
  /** The rankers' results per dataset (run.ts's `results`). */
  results?: readonly DatasetRow[];
  /** NDCG@10 of every query, by dataset and ranker: the intervals are bootstrapped from these. */
  ndcgByQuery?: ReadonlyMap<string, Record<string, number[]>>;
  calibration?: readonly Distribution[] | undefined;
  /** `--feedback`: learning from use, before and after. */
  learning?: readonly LearningRow[];
  /** What the run was (arguments), shown under the title. */
  command?: string;
}

const escape = (text: string) =>
  text.replace(/[&<>"]/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[char]!);
const fixed = (value: number) => value.toFixed(3);
const signed = (value: number) => `${value >= 0 ? '+' : ''}${value.toFixed(3)}`;
const verdict = (low: number, high: number) => (low > 0 ? 'better' : high < 0 ? 'worse' : 'within noise');
/** A 0–1 value as a CSS percentage, clamped (intervals can poke past either end). */
const percent = (value: number) => `${(Math.min(1, Math.max(0, value)) * 100).toFixed(1)}%`;

/** One bar: the value's width, and its interval as a whisker when known. */
function bar(label: string, value: number, interval?: { low: number; high: number }): string {
  const whisker = interval
    ? `<span class="whisker" style="left:${percent(interval.low)};width:calc(${percent(interval.high)} - ${percent(interval.low)})"></span>`
    : '';
  const text = interval ? `${fixed(value)} [${fixed(interval.low)}, ${fixed(interval.high)}]` : fixed(value);
  return (
    `<div class="row"><span class="label">${escape(label)}</span>` +
    `<span class="track" role="img" aria-label="${escape(label)} ${text}"><span class="fill" style="width:${percent(value)}"></span>${whisker}</span>` +
    `<span class="value">${text}</span></div>`
  );
}

/** The 95 % interval of a ranker's mean NDCG@10 over the set's queries (the bootstrap of b − 0). */
function meanInterval(values: readonly number[]): { low: number; high: number } | undefined {
  if (values.length === 0) return undefined;
  const { low, high } = pairedBootstrap(
    values.map(() => 0),
    values,
  );
  return { low, high };
}

function rankingSection(input: HtmlReportInput): string {
  const results = input.results ?? [];
  if (results.length === 0) return '';
  const sets = results.map((result) => {
    const perQuery = input.ndcgByQuery?.get(result.dataset) ?? {};
    const rankers = Object.keys(result.byRanker);
    const bars = rankers
      .map((name) => {
        const ndcg = result.byRanker[name]!['NDCG@10'] ?? 0;
        return bar(name, ndcg, perQuery[name] ? meanInterval(perQuery[name]) : undefined);
      })
      .join('');
    // Each ranker after ours, against ours: the change with its paired interval.
    const [, ours, ...others] = rankers;
    const changes =
      ours !== undefined && perQuery[ours]
        ? others
            .filter((name) => perQuery[name])
            .map((name) => {
              const { mean, low, high } = pairedBootstrap(perQuery[ours]!, perQuery[name]!);
              return `<li>${escape(name)} vs ${escape(ours)}: ${signed(mean)} [${signed(low)}, ${signed(high)}], ${verdict(low, high)}</li>`;
            })
            .join('')
        : '';
    return (
      `<section class="set" aria-labelledby="set-${escape(result.dataset)}"><h3 id="set-${escape(result.dataset)}">${escape(result.dataset)}</h3>` +
      `<p class="note">${result.queries} of ${result.totalQueries} requests, ${result.tools} tools</p>` +
      `<div class="bars">${bars}</div>${changes ? `<ul class="changes">${changes}</ul>` : ''}</section>`
    );
  });
  return `<h2>NDCG@10 per set</h2><p class="note">Bars: mean NDCG@10 over the set's sampled requests; whiskers and brackets: its 95 % bootstrap interval over those requests. Changes between rankers are paired (the same requests resampled for both).</p>${sets.join('')}`;
}

/** First search (lexical, `ours`) vs warm (vectors ready, `fused`), where the run had both. */
function statesSection(input: HtmlReportInput): string {
  const rows = (input.results ?? []).flatMap((result) => {
    const perQuery = input.ndcgByQuery?.get(result.dataset);
    if (!perQuery?.ours || !perQuery.fused) return [];
    const { mean, low, high } = pairedBootstrap(perQuery.ours, perQuery.fused);
    return [
      `<tr><th scope="row">${escape(result.dataset)}</th><td>${fixed(result.byRanker.ours!['NDCG@10']!)}</td><td>${fixed(result.byRanker.fused!['NDCG@10']!)}</td><td>${signed(mean)} [${signed(low)}, ${signed(high)}]</td><td>${verdict(low, high)}</td></tr>`,
    ];
  });
  if (rows.length === 0) return '';
  return `<h2>First search vs warm</h2><p class="note">A list's first search ranks by words; once its tools are embedded, meaning is fused in.</p><table><thead><tr><th scope="col">set</th><th scope="col">first</th><th scope="col">warm</th><th scope="col">change [95 %]</th><th scope="col"></th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function learningSection(input: HtmlReportInput): string {
  const rows = (input.learning ?? []).flatMap((result) =>
    Object.entries(result.byCondition).map(
      ([condition, after]) =>
        `<div class="pair"><h3>${escape(result.dataset)}, ${escape(condition)}</h3><p class="note">${result.trainRequests} requests reported, ${result.testRequests} tested; after DELETE ${after.forgotten ? 'identical to before' : 'different from before'}</p>` +
        `<div class="bars">${bar('before', result.before)}${bar('after', after.after)}</div>` +
        `<p>change ${signed(after.change)} [${signed(after.low)}, ${signed(after.high)}], ${verdict(after.low, after.high)}</p></div>`,
    ),
  );
  if (rows.length === 0) return '';
  return `<h2>Learning from use: before and after</h2><p class="note">NDCG@10 of the held-out half, before the reports and after them (paired bootstrap 95 % interval).</p>${rows.join('')}`;
}

function calibrationSection(input: HtmlReportInput): string {
  const report = input.calibration ?? [];
  if (report.length === 0) return '';
  const rows = report
    .map(
      (row) =>
        `<section class="distribution"><h3>${escape(row.label)}</h3><p class="note">${row.requests} requests; top relevance ≥ 0.5 for ${(row.atLeastHalf * 100).toFixed(0)} %</p>` +
        `<div class="bars">${bar('mean', row.mean)}${bar('median', row.p50)}${bar('90th percentile', row.p90)}${bar('max', row.max)}</div></section>`,
    )
    .join('');
  return `<h2>Calibration: top relevance</h2><p class="note">The first result's relevance for the sets' own requests, for the same requests without their gold tools (near miss), and for requests against a catalog that cannot serve them (no fit). Calibrated: high for the first, low for the others.</p>${rows}`;
}

const STYLE = `
body { font-family: system-ui, sans-serif; color: #1b1f24; max-width: 1000px; margin: 0 auto; padding: 1rem 1.5rem 3rem; line-height: 1.4; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.2rem; margin-top: 2rem; border-bottom: 1px solid #d0d7de; } h3 { font-size: 1rem; margin: 1rem 0 0.25rem; }
.note { color: #4a525c; font-size: 0.9rem; margin: 0.25rem 0; }
.row { display: grid; grid-template-columns: 9rem 1fr 13rem; gap: 0.75rem; align-items: center; margin: 0.2rem 0; }
.label { font-family: ui-monospace, monospace; font-size: 0.9rem; }
.value { font-family: ui-monospace, monospace; font-size: 0.85rem; }
.track { position: relative; height: 1rem; background: #e3e7eb; border-radius: 3px; }
.fill { position: absolute; left: 0; top: 0; bottom: 0; background: #0b57d0; border-radius: 3px; }
.whisker { position: absolute; top: 0.4rem; height: 0.2rem; background: #e8710a; }
.changes { font-size: 0.9rem; margin: 0.25rem 0; }
table { border-collapse: collapse; } th, td { padding: 0.25rem 0.75rem; text-align: left; border-bottom: 1px solid #e3e7eb; }
`;

/** The report as one HTML document. */
function renderHtmlReport(input: HtmlReportInput): string {
  const sections = [rankingSection(input), statesSection(input), learningSection(input), calibrationSection(input)];
  const body = sections.filter(Boolean).join('\n') || '<p>This run measured nothing to show.</p>';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>catalog-search eval</title><style>${STYLE}</style></head>
<body><main><h1>catalog-search eval</h1>
${input.command ? `<p class="note"><code>${escape(input.command)}</code></p>` : ''}
${body}
</main></body></html>
`;
}

export function writeHtmlReport(file: string, input: HtmlReportInput): void {
  writeFileSync(file, renderHtmlReport(input));
  console.log(`wrote ${file}`);
}
