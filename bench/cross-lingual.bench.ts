// `npm run bench -- cross-lingual`: what Japanese requests cost (docs/performance.md).
//   1. the dictionary: load time of the language (its folder's dynamic import, as the service does at
//      start) and of the first Japanese request's lookup (which splits it), and the process's RSS and
//      heap before and after;
//   2. searches of the first 1,000 tools of ../shared/bench/smithery_catalog, warm (the rank cache holds
//      the list, as for a router's next request) and cold (a fresh cache): English requests beside the
//      team's Japanese translations of them. CPU time of this process, cases taking turns run by run.
import { createRankCache, loadLanguages, rankTools, type ToolInfo } from '../packages/core/src/index.js';
import { loadCatalog } from '../eval/datasets.js';
import { median } from './rounds.js';

const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const before = process.memoryUsage();
const started = performance.now();
await loadLanguages(['ja']);
// Loaded with the language above: this import costs nothing more; the lookup splits the dictionary.
(await import('../packages/core/src/languages/ja/words.js')).japaneseWords('メール');
const loadMs = performance.now() - started;
const after = process.memoryUsage();
console.log(
  `dictionary: first lookup ${loadMs.toFixed(1)} ms; RSS ${mib(before.rss)} → ${mib(after.rss)}, ` +
    `heap used ${mib(before.heapUsed)} → ${mib(after.heapUsed)}`,
);

const bench = loadCatalog('smithery_catalog', 1_000);
if (bench === undefined)
  throw new Error('cross-lingual.bench.ts needs ../shared/bench/smithery_catalog beside the repo');
const tools: ToolInfo[] = bench.tools;

const pairs: [string, string][] = [
  [
    'search the web for recent news and save a summary to a file',
    '最近のニュースをウェブで検索して、要約をファイルに保存して',
  ],
  ['create a new issue in the github repository', 'GitHubのリポジトリに新しいイシューを作成して'],
  ['add tomorrow’s meeting to my calendar', 'カレンダーに明日の会議を追加して'],
  ['send an email to the team', 'チームにメールを送って'],
];

const RUNS = 60;
const cpuMs = (run: () => unknown): number => {
  const start = process.cpuUsage();
  run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};

for (const mode of ['warm', 'cold'] as const) {
  const cache = createRankCache();
  const search = (query: string) => () =>
    rankTools({ query: [query], tools }, { cache: mode === 'warm' ? cache : createRankCache() });
  const english: number[] = [];
  const japanese: number[] = [];
  // Warm-up (JIT, and the warm case's cache).
  for (const [en, ja] of pairs) {
    for (let i = 0; i < 3; i += 1) {
      search(en)();
      search(ja)();
    }
  }
  for (let run = 0; run < RUNS; run += 1) {
    const [en, ja] = pairs[run % pairs.length]!;
    if (run % 2 === 0) {
      english.push(cpuMs(search(en)));
      japanese.push(cpuMs(search(ja)));
    } else {
      japanese.push(cpuMs(search(ja)));
      english.push(cpuMs(search(en)));
    }
  }
  const [e, j] = [median(english), median(japanese)];
  console.log(
    `1,000 tools, ${mode}: English ${e.toFixed(2)} ms, Japanese ${j.toFixed(2)} ms (median CPU of ${RUNS} each): ${(j / e).toFixed(2)}×`,
  );
}
