// Ranking speed: 1,000 real MCP tools (the first 1,000 of ../shared/bench/smithery_catalog), one request.
//   cold  = a fresh rank cache every run (every tool tokenized, the list indexed)
//   warm  = the same list again with the cache (fresh tool objects, as after the service parses a body)
//   warm, other sub-query = the same tools array, another sub-query (the LLM stage's per-step calls:
//   the cache recognises the list and skips reading its tools' contents)
// Time is CPU time of this process (process.cpuUsage), i.e. "on one core": on a shared machine wall time
// mostly measures the neighbours. Reported as the median of many runs and as a ratio to the plain BM25 baseline (rankOkapiBm25, which
// re-tokenizes everything on every call) measured in the same run. Targets: cold < 15 ms, warm < 3 ms.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createRankCache, rankOkapiBm25, rankTools, type ToolInfo } from '../packages/core/src/index.js';

const CATALOG = fileURLToPath(new URL('../../shared/bench/smithery_catalog/catalog.jsonl', import.meta.url));
const TOOL_COUNT = 1_000;
const LARGE_COUNT = 3_000;
const RUNS = 40;

const catalog: ToolInfo[] = readFileSync(CATALOG, 'utf8')
  .split('\n')
  .filter(Boolean)
  .slice(0, LARGE_COUNT)
  .map((line) => {
    const raw = JSON.parse(line) as ToolInfo;
    const tool: ToolInfo = { toolKey: raw.toolKey, toolName: raw.toolName, serverName: raw.serverName, description: raw.description };
    if (raw.inputSchema) tool.inputSchema = raw.inputSchema;
    return tool;
  });
const tools = catalog.slice(0, TOOL_COUNT);
const clone = (): ToolInfo[] => JSON.parse(JSON.stringify(tools)) as ToolInfo[];
const cloneLarge = (): ToolInfo[] => JSON.parse(JSON.stringify(catalog)) as ToolInfo[];
const query = ['search the web for recent news about electric cars and save a summary to a file'];
const otherQuery = ['create a github issue for the failing build'];

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Median ms of `run`, with `setup` (untimed) before each run. */
function measure<T>(setup: () => T, run: (state: T) => unknown, runs = RUNS): number {
  for (let i = 0; i < 5; i += 1) run(setup()); // JIT warm-up
  const samples: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const state = setup();
    const started = process.cpuUsage();
    run(state);
    const used = process.cpuUsage(started);
    samples.push((used.user + used.system) / 1000);
  }
  return median(samples);
}

const baseline = measure(clone, (list) => rankOkapiBm25({ query, tools: list }));
const cold = measure(() => ({ list: clone(), cache: createRankCache() }), ({ list, cache }) => rankTools({ query, tools: list }, { cache }));
const noCache = measure(clone, (list) => rankTools({ query, tools: list }));
const warmCache = createRankCache();
rankTools({ query, tools }, { cache: warmCache });
const warm = measure(clone, (list) => rankTools({ query, tools: list }, { cache: warmCache }));
const warmSubQuery = measure(() => tools, (list) => rankTools({ query: otherQuery, tools: list }, { cache: warmCache }));
const warmThree = measure(clone, (list) => rankTools({ query: [...query, ...otherQuery, 'translate text to french'], tools: list }, { cache: warmCache }));
const warmTop20 = measure(clone, (list) => rankTools({ query, tools: list }, { cache: warmCache, limit: 20 }).map((r) => r.explanation));

// The client's local fallback ranks the whole list a router sends, which can be a few thousand tools.
const largeBaseline = measure(cloneLarge, (list) => rankOkapiBm25({ query, tools: list }), 15);
const largeCold = measure(() => ({ list: cloneLarge(), cache: createRankCache() }), ({ list, cache }) => rankTools({ query, tools: list }, { cache }), 15);

const rows: Array<[string, number]> = [
  ['plain BM25 baseline (rankOkapiBm25)', baseline],
  ['rankTools cold (new cache)', cold],
  ['rankTools without a cache', noCache],
  ['rankTools warm (same list, new objects)', warm],
  ['rankTools warm, another sub-query', warmSubQuery],
  ['rankTools warm, 3 sub-queries', warmThree],
  ['rankTools warm, top 20 + explanations', warmTop20],
];
console.log(`${TOOL_COUNT} tools, median CPU time of ${RUNS} runs (node ${process.version})`);
for (const [label, ms] of rows) {
  console.log(`  ${label.padEnd(42)} ${ms.toFixed(2).padStart(7)} ms   ${(ms / baseline).toFixed(2)}× baseline`);
}
console.log(`${catalog.length} tools, median CPU time of 15 runs`);
console.log(`  ${'plain BM25 baseline'.padEnd(42)} ${largeBaseline.toFixed(2).padStart(7)} ms   1.00× baseline`);
console.log(`  ${'rankTools cold (new cache)'.padEnd(42)} ${largeCold.toFixed(2).padStart(7)} ms   ${(largeCold / largeBaseline).toFixed(2)}× baseline`);
