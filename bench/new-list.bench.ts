// `npm run bench -- new-list`: what a router meets first: a new 1,000-tool list (the first 1,000 tools
// of smithery_catalog), searched one request after another with the datasets' requests (LiveMCPBench,
// then MCPToolBench++; none asked twice), by the service with the semantic stage on (EMBEDDINGS=on, the embedded encoder)
// and off, alternating request by request so both see the same machine. Each round is a new project,
// so its list is new to the stage and is embedded in the background while the round runs: this is a
// list's first minute. Reported per round: p50 / p95 / max of each, their ratio, and how the stage
// answered (meta.semantic), and how much of the list its background lane had embedded by the round's
// end (the vectors' bytes in the service's /metrics, ~2.2 KB per tool). Targets (docs/performance.md): a search of a list being embedded costs at
// most 2× the same search with the stage off (+10 ms), p50; no search past its deadline (+150 ms).
// Then the steady state: the last round's list once embedded, new requests, stage on vs off.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { SearchResponse } from '@catalog-search/core';
import { loadCatalog } from '../eval/datasets.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SEARCHES = Number(process.env.BENCH_SEARCHES ?? 30);
const DEADLINE_MS = 4000;
const STEADY_SEARCHES = Number(process.env.BENCH_STEADY_SEARCHES ?? 60);

const catalog = loadCatalog('smithery_catalog', 1000);
const requests = [...(loadCatalog('livemcpbench')?.queries ?? []), ...(loadCatalog('mcptoolbench_pp')?.queries ?? [])];
if (catalog === undefined || requests.length < ROUNDS * SEARCHES + STEADY_SEARCHES)
  throw new Error('new-list.bench.ts needs ../shared/bench beside the repo');
const tools = catalog.tools;

const server = fork(fileURLToPath(new URL('./new-list-bench-server.ts', import.meta.url)), {
  execArgv: ['--import', 'tsx'],
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
const { onPort, offPort, tokens } = await new Promise<{ onPort: number; offPort: number; tokens: string[] }>(
  (resolve) => server.once('message', resolve as never),
);

async function search(port: number, token: string, query: string): Promise<{ ms: number; semantic: string }> {
  const body = JSON.stringify({ query: [query], tools, maxResults: 20 });
  const started = performance.now();
  const response = await fetch(`http://127.0.0.1:${port}/v1/catalog/search`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body,
  });
  const answer = (await response.json()) as SearchResponse;
  if (response.status !== 200) throw new Error(`search answered ${response.status}`);
  return { ms: performance.now() - started, semantic: answer.meta.semantic ?? 'off' };
}

/** Vectors the stage-on service holds (all projects), from its Prometheus metrics: bytes / bytes per tool vector. */
async function vectorsHeld(): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${onPort}/metrics`)).text();
  const bytes = Number(/^catalog_search_cache_bytes\{cache="vectors"\} (\d+)/m.exec(text)?.[1] ?? 0);
  return Math.round(bytes / VECTOR_BYTES);
}
/** A 512-float vector and its cache entry (VectorCache's accounting), as `npm run bench -- semantic` prints: 2.19 MB per 1,000. */
const VECTOR_BYTES = 2_296;

const quantile = (values: number[], q: number): number =>
  [...values].sort((a, b) => a - b)[Math.floor(q * (values.length - 1))]!;
const figures = (values: number[]) =>
  `${quantile(values, 0.5).toFixed(1)} / ${quantile(values, 0.95).toFixed(1)} / ${Math.max(...values).toFixed(1)}`;

// Both services' code warmed up on another list first, so the rounds measure the list, not the JIT.
for (let i = 0; i < 5; i += 1) {
  await search(onPort, tokens.at(-1)!, `warm up ${i}`);
  await search(offPort, tokens.at(-1)!, `warm up ${i}`);
}

console.log(
  `a new 1,000-tool list (${Math.round(JSON.stringify(tools).length / 1024)} KB), ${SEARCHES} searches one after another per round, stage on and off alternating; ms p50 / p95 / max`,
);
console.log(
  '| round | stage on | stage off | p50 ratio | within 2× + 10 ms | semantic (stage on) | past deadline | tools embedded by its end |',
);
console.log('|---|---|---|---|---|---|---|---|');
let worst = 0;
for (let round = 0; round < ROUNDS; round += 1) {
  const on: number[] = [];
  const off: number[] = [];
  const statuses = new Map<string, number>();
  const heldBefore = await vectorsHeld();
  for (let i = 0; i < SEARCHES; i += 1) {
    const query = requests[round * SEARCHES + i]!;
    const fromOn = await search(onPort, tokens[round]!, query);
    on.push(fromOn.ms);
    statuses.set(fromOn.semantic, (statuses.get(fromOn.semantic) ?? 0) + 1);
    off.push((await search(offPort, tokens[round]!, query)).ms);
  }
  const ratio = quantile(on, 0.5) / quantile(off, 0.5);
  worst = Math.max(worst, ...on, ...off);
  const met = quantile(on, 0.5) <= 2 * quantile(off, 0.5) + 10;
  const late = [...on, ...off].filter((ms) => ms > DEADLINE_MS + 150).length;
  console.log(
    `| ${round + 1} | ${figures(on)} | ${figures(off)} | ${ratio.toFixed(2)}× | ${met ? 'yes' : 'NO'} | ${[...statuses].map(([status, count]) => `${status} ${count}`).join(', ')} | ${late} | ~${(await vectorsHeld()) - heldBefore} of ${tools.length} |`,
  );
}
console.log(`slowest search of the run: ${worst.toFixed(0)} ms (deadline ${DEADLINE_MS} ms)`);

// The same list once embedded (the last round's project, the steady state): what a new request costs a
// router's search with the stage on, whole service over HTTP, against the stage off (issue 21's warm-hybrid
// figure, which semantic.bench.ts measures inside the pipeline). A request not embedded within its bound
// (EMBEDDINGS_QUERY_WAIT_MS, 60 ms) is answered by words: `timeout`.
const steadyToken = tokens[ROUNDS - 1]!;
// "hybrid" once the whole list has vectors (the polling request's own vector is cached after its first search).
for (
  let wait = 0;
  wait < 600 && (await search(onPort, steadyToken, 'the steady state')).semantic !== 'hybrid';
  wait += 1
)
  await new Promise((resolve) => setTimeout(resolve, 500));
const steady = { on: [] as number[], off: [] as number[], statuses: new Map<string, number>() };
for (const query of requests.slice(ROUNDS * SEARCHES, ROUNDS * SEARCHES + STEADY_SEARCHES)) {
  const fromOn = await search(onPort, steadyToken, query);
  steady.on.push(fromOn.ms);
  steady.statuses.set(fromOn.semantic, (steady.statuses.get(fromOn.semantic) ?? 0) + 1);
  steady.off.push((await search(offPort, steadyToken, query)).ms);
}
console.log(
  `the list embedded, ${STEADY_SEARCHES} new requests: stage on ${figures(steady.on)}, off ${figures(steady.off)} ms p50 / p95 / max; ` +
    `on adds ${(quantile(steady.on, 0.5) - quantile(steady.off, 0.5)).toFixed(1)} ms p50; ` +
    `semantic: ${[...steady.statuses].map(([status, count]) => `${status} ${count}`).join(', ')}`,
);
server.disconnect();
server.kill();
