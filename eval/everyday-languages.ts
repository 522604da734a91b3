// `npm run eval -- --everyday --languages`: the everyday table per language (issue #46). Twelve of the
// team's everyday requests on the README's sample list (eval/everyday/requests.json) and the team's own
// translations of them (eval/everyday/languages.json), ranked by core with every language loaded, no
// model. Prints per language NDCG@10 against English's and how many requests are answered with
// nothing while their English original finds its gold in the top 10.
import { readFileSync } from 'node:fs';
import { createRankCache, rankTools, type ToolInfo } from '../packages/core/src/index.js';
import { standardFields } from './datasets.js';
import { readEverydayRequests } from './everyday.js';
import { scoreQuery } from './metrics.js';

interface LanguagesFile {
  languages: string[];
  /** Per request: its id in requests.json and its text under each language's code. */
  requests: ({ id: string } & Record<string, string>)[];
}

interface LanguageRow {
  lang: string;
  requests: number;
  'NDCG@10': number;
  /** NDCG@10 over English's on the same requests. */
  ratio: number;
  /** Ids answered with nothing while the English original finds its gold in the top 10. */
  silent: string[];
}

const LANGUAGES_FILE = new URL('./everyday/languages.json', import.meta.url);
const SAMPLE_FILE = new URL('../examples/search-request.json', import.meta.url);

export function runEverydayLanguagesEval(): LanguageRow[] {
  const file = JSON.parse(readFileSync(LANGUAGES_FILE, 'utf8')) as LanguagesFile;
  const english = new Map(readEverydayRequests().requests.map((request) => [request.id, request]));
  const tools: ToolInfo[] = (
    JSON.parse(readFileSync(SAMPLE_FILE, 'utf8')) as { tools: Parameters<typeof standardFields>[0][] }
  ).tools.map(standardFields);
  const cache = createRankCache();
  const rank = (query: string, relevant: string[]) => {
    const ranked = rankTools({ query: [query], tools }, { cache }).map((r) => r.tool.toolKey);
    return { ...scoreQuery(ranked, relevant), empty: ranked.length === 0 };
  };
  const englishScores = new Map<string, ReturnType<typeof rank>>();
  for (const { id } of file.requests) {
    const original = english.get(id);
    if (original === undefined || original.list !== 'sample')
      throw new Error(`no sample request ${id} in requests.json`);
    englishScores.set(id, rank(original.query, original.relevant));
  }
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / Math.max(values.length, 1);
  const englishNdcg = mean([...englishScores.values()].map((scores) => scores['NDCG@10']));
  const rows: LanguageRow[] = [
    { lang: 'en', requests: file.requests.length, 'NDCG@10': englishNdcg, ratio: 1, silent: [] },
  ];
  for (const lang of file.languages) {
    const ndcgs: number[] = [];
    const silent: string[] = [];
    for (const request of file.requests) {
      const text = request[lang];
      if (text === undefined) throw new Error(`everyday request ${request.id} has no "${lang}" text`);
      const scores = rank(text, english.get(request.id)!.relevant);
      ndcgs.push(scores['NDCG@10']);
      if (scores.empty && englishScores.get(request.id)!['R@10'] > 0) silent.push(request.id);
    }
    const ndcg = mean(ndcgs);
    rows.push({ lang, requests: ndcgs.length, 'NDCG@10': ndcg, ratio: ndcg / (englishNdcg || 1), silent });
  }
  console.log('\n== Everyday requests per language: the sample list, no model ==');
  console.log(`  lang requests NDCG@10  vs en  answered with nothing (English finds the tool)`);
  for (const row of rows)
    console.log(
      `  ${row.lang.padEnd(4)} ${String(row.requests).padStart(8)} ${row['NDCG@10'].toFixed(3).padStart(7)} ` +
        `${`${row.ratio.toFixed(2)}x`.padStart(6)}  ${row.silent.length} of ${row.requests}` +
        (row.silent.length > 0 ? ` (${row.silent.join(', ')})` : ''),
    );
  return rows;
}
