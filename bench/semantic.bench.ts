// The semantic stage's cost with the embedded encoder (USE lite in a worker thread):
//   - the encoder: load time of its two lanes, encoder seconds (CPU and wall) per 1,000 tools and ms per
//     tool text in the background lane's batches, ms per short query in the query lane;
//   - a warm 1,000-tool search, hybrid vs lexical-only, in the same run: the list's tool vectors are
//     cached (its first search embedded it), every run's query is new (so its embedding is included);
//   - memory: the bytes of the list's vectors in the cache.
// Wall time (the embedding runs in another thread, so this process's CPU time would hide it), median and
// middle half of the runs; lexical and hybrid runs alternate so both see the same machine.
// Target: hybrid adds at most 30 ms p50 over lexical-only.
import type { PreparedSearch, ToolInfo } from '@catalog-search/core';
import { createRankCache, DEFAULT_MAX_RESULTS } from '@catalog-search/core';
import pino from 'pino';
import { loadCatalog } from '../eval/datasets.js';
import { startDeadline } from '../src/waits/deadline.js';
import { MemoryBudget } from '../src/memory/exports.js';
import { searchCatalog, type SearchContext } from '../src/search/pipeline.js';
import { createEmbeddedSource } from '../src/semantic/embedded-source.js';
import { VectorProvider } from '../src/semantic/vector-provider.js';
import { queryText, toolText } from '../src/semantic/tool-text.js';

const catalog = loadCatalog('smithery_catalog', 1_000);
// Router sub-queries are short steps: LiveMCPBench's human-written tasks (median 114 characters) and,
// for more of them, MCPToolBench++'s single-call requests (median 82).
const requests = [...(loadCatalog('livemcpbench')?.queries ?? []), ...(loadCatalog('mcptoolbench_pp')?.queries ?? [])];
if (catalog === undefined || requests.length < 200)
  throw new Error('semantic.bench.ts needs ../shared/bench beside the repo');
const tools: ToolInfo[] = catalog.tools;
const log = pino({ level: 'silent' });
const quantile = (values: number[], q: number): number =>
  [...values].sort((a, b) => a - b)[Math.floor(q * (values.length - 1))]!;
const summary = (values: number[]) =>
  `${quantile(values, 0.5).toFixed(2).padStart(7)} ms  (middle half ${quantile(values, 0.25).toFixed(2)}–${quantile(values, 0.75).toFixed(2)})`;

// The encoder on its own: every tool text of the list, in the background lane's batches (as the stage sends them). The CPU time is the
// process's (all threads), which is the worker's: this thread only waits. It is the figure to read on a
// shared machine (issue 21's target: at most 20 s of one core per 1,000 tools); wall time also counts
// the other programs' turns on the cores.
const embedder = createEmbeddedSource();
const { loadMs, backend } = await embedder.warmUp();
// The background lane loads its model beside the query lane's: loaded before its CPU is counted.
await embedder.embed(['warm up'], { background: true });
const texts = tools.map(toolText);
const cpuBefore = process.cpuUsage();
let started = performance.now();
for (let at = 0; at < texts.length; at += embedder.batchSize)
  await embedder.embed(texts.slice(at, at + embedder.batchSize), { background: true });
const listWallMs = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
const listCpuSeconds = (cpu.user + cpu.system) / 1e6;
const perToolText = listWallMs / texts.length;
const queryTimes: number[] = [];
for (const request of requests.slice(0, 60)) {
  started = performance.now();
  await embedder.embed([queryText(request)]);
  queryTimes.push(performance.now() - started);
}
console.log(
  `embedded encoder (node ${process.version}, tfjs ${backend.name}${backend.simd ? ' SIMD' : ''}, ${backend.threads} thread): load ${loadMs.toFixed(0)} ms (query lane); ${perToolText.toFixed(1)} ms per tool text (background batches of ${embedder.batchSize}); one query ${summary(queryTimes)}`,
);
console.log(
  `encoder seconds per 1,000 tools: ${((listCpuSeconds * 1000) / texts.length).toFixed(1)} s CPU (target ≤ 20 s of one core: ${(listCpuSeconds * 1000) / texts.length <= 20 ? 'met' : 'NOT met'}), ${(listWallMs / texts.length).toFixed(1)} s wall (${texts.length} tool texts of ${(texts.reduce((sum, text) => sum + text.length, 0) / texts.length).toFixed(0)} characters on average)`,
);

// Warm 1,000-tool searches.
const stage = new VectorProvider(embedder, {
  cacheBytes: 64 * 1024 * 1024,
  memory: new MemoryBudget({ maxBytes: 256 * 1024 * 1024, projectShare: 1 }),
  waitShare: 1,
  maxQueuedPerProject: 5000,
});
const rankCache = createRankCache();
const context = (semantic: VectorProvider | undefined): SearchContext => ({
  projectId: 'bench',
  requestId: 'bench',
  log,
  rankCache,
  deadline: startDeadline(60_000),
  // As the route passes it (the list's meta.toolSet): each search reads the list as new objects, and the
  // stage keeps the list's keys by this id, as it does for a router that resends its list.
  toolSetRef: { toolSet: 'bench-list' },
  maxDescriptionChars: 2000,
  vectors: semantic,
});
const clone = (): ToolInfo[] => JSON.parse(JSON.stringify(tools)) as ToolInfo[];
/** A search as the route hands it to the pipeline: every tool usable, no filter. */
const prepared = (query: string[], list: ToolInfo[]): PreparedSearch => ({
  query,
  maxResults: DEFAULT_MAX_RESULTS,
  tools: list,
  list,
  usableTools: list.length,
  skippedMeta: {},
});
started = performance.now();
let first = await searchCatalog(prepared(['warm up'], clone()), context(stage));
while (first.response.meta.semantic !== 'hybrid')
  first = await searchCatalog(prepared(['warm up'], clone()), context(stage));
console.log(
  `first embedding of the 1,000-tool list: ${((performance.now() - started) / 1000).toFixed(1)} s wall; vectors in the cache: ${(stage.stats.bytes / 1024 / 1024).toFixed(2)} MB`,
);

const lexical: number[] = [];
const hybrid: number[] = [];
const hybridCachedQuery: number[] = [];
const RUNS = 80;
const timed = async (request: PreparedSearch, semantic: VectorProvider | undefined): Promise<number> => {
  const at = performance.now();
  const answer = await searchCatalog(request, context(semantic));
  if (semantic && answer.response.meta.semantic !== 'hybrid')
    throw new Error(`expected a hybrid search, got ${answer.response.meta.semantic}`);
  return performance.now() - at;
};
for (let i = 0; i < RUNS + 5; i += 1) {
  const query = [requests[i]!.slice(0, 300)];
  const lexicalMs = await timed(prepared(query, clone()), undefined);
  const hybridMs = await timed(prepared(query, clone()), stage);
  // The same query again: its vector is cached, so this is the stage's own cost (keys, dot products, fusion).
  const cachedMs = await timed(prepared(query, clone()), stage);
  if (i < 5) continue; // warm-up
  lexical.push(lexicalMs);
  hybrid.push(hybridMs);
  hybridCachedQuery.push(cachedMs);
}
const added = quantile(hybrid, 0.5) - quantile(lexical, 0.5);
console.log(`warm 1,000-tool search, ${RUNS} runs each, every query new:`);
console.log(`  lexical only                 ${summary(lexical)}`);
console.log(`  hybrid (query embedded)      ${summary(hybrid)}`);
console.log(`  hybrid (query vector cached) ${summary(hybridCachedQuery)}`);
console.log(`  hybrid adds ${added.toFixed(1)} ms p50 (target ≤ 30 ms): ${added <= 30 ? 'met' : 'NOT met'}`);
await stage.close();
