// `npm run eval -- --lang ja` (or zh): the team's translations of LiveMCPBench and MCPToolBench++
// requests (eval/cross-lingual/<lang>.json: ids and our text only, under the language's code) ranked
// beside their English originals, on the same tools and gold read from ../shared/bench, with no model
// configured. Prints NDCG@10, the other metrics and the LLM prompt's candidate recall per dataset, the
// translated/English ratio, and every translated request answered with nothing while its English
// original finds its gold in the top 10 (the bar: none).
import { readFileSync } from 'node:fs';
import { loadDatasets, type EvalQuery } from './datasets.js';
import { withPromptColumns } from './llm-rankers.js';
import { METRICS, scoreQuery } from './metrics.js';
import { defaultRankers } from './rankers.js';

/** One translated request: its dataset, its id there, and the text under the language's code ("ja": "..."). */
type Translation = { dataset: string; id: string } & Record<string, string>;

interface CrossLingualRow {
  dataset: string;
  requests: number;
  english: Record<string, number>;
  translated: Record<string, number>;
  /** Ids of translated requests answered with nothing whose English original has gold in its top 10. */
  silent: string[];
}

const COLUMNS = [...METRICS, 'cand recall'] as const;

export async function runCrossLingualEval(lang: string): Promise<CrossLingualRow[]> {
  const file = new URL(`./cross-lingual/${lang}.json`, import.meta.url);
  const { requests } = JSON.parse(readFileSync(file, 'utf8')) as { requests: Translation[] };
  const names = [...new Set(requests.map((request) => request.dataset))];
  const rows: CrossLingualRow[] = [];
  for (const dataset of loadDatasets({ maxQueries: Infinity, only: names })) {
    const originals = new Map(dataset.queries.map((query) => [query.id, query]));
    const pairs = requests
      .filter((request) => request.dataset === dataset.name)
      .map((request): [EvalQuery, EvalQuery] => {
        const original = originals.get(request.id);
        if (original === undefined) throw new Error(`${dataset.name} has no request ${request.id}`);
        const text = request[lang];
        if (text === undefined) throw new Error(`${dataset.name} ${request.id} has no "${lang}" text`);
        return [original, { ...original, query: [text] }];
      });
    if (pairs.length === 0) continue;
    const english: Record<string, number> = {};
    const translated: Record<string, number> = {};
    const silent: string[] = [];
    const englishFinds = new Set<string>();
    for (const [sums, index] of [
      [english, 0],
      [translated, 1],
    ] as const) {
      const ranker = withPromptColumns(defaultRankers()[1]!);
      await ranker.prepare?.(dataset);
      for (const pair of pairs) {
        const query = pair[index];
        const output = await ranker.rank(query, dataset.tools);
        const scores: Record<string, number> = { ...scoreQuery(output.ranked, query.relevant), ...output.extras };
        for (const column of COLUMNS) sums[column] = (sums[column] ?? 0) + scores[column]! / pairs.length;
        if (index === 0 && scores['R@10']! > 0) englishFinds.add(query.id);
        if (index === 1 && output.ranked.length === 0 && englishFinds.has(query.id)) silent.push(query.id);
      }
    }
    rows.push({ dataset: dataset.name, requests: pairs.length, english, translated, silent });
  }
  printRows(rows, lang);
  return rows;
}

function printRows(rows: CrossLingualRow[], lang: string): void {
  const fmt = (value: number | undefined): string => (value ?? 0).toFixed(3).padStart(11);
  console.log(`\n== Cross-lingual: ${lang} requests beside their English originals (no model) ==`);
  console.log(`  ${'dataset'.padEnd(16)} ${'lang'.padEnd(4)} ${COLUMNS.map((c) => c.padStart(11)).join(' ')}`);
  for (const row of rows) {
    console.log(`  ${row.dataset.padEnd(16)} ${'en'.padEnd(4)} ${COLUMNS.map((c) => fmt(row.english[c])).join(' ')}`);
    console.log(`  ${''.padEnd(16)} ${lang.padEnd(4)} ${COLUMNS.map((c) => fmt(row.translated[c])).join(' ')}`);
    const ratio = row.translated['NDCG@10']! / (row.english['NDCG@10']! || 1);
    console.log(
      `  ${''.padEnd(16)} ${lang}/en NDCG@10 ${ratio.toFixed(2)}x over ${row.requests} requests; ` +
        `answered with nothing where English finds its gold in the top 10: ${row.silent.length}` +
        (row.silent.length > 0 ? ` (${row.silent.join(', ')})` : ''),
    );
  }
}
