// `npm run bench -- service`: throughput and latency of POST /catalog/search (full search: auth,
// validation, lexical ranking on a warm per-project cache, audit log) against the floor, a bare
// Fastify route that only parses and validates the same body, for 100- and 1,000-tool requests,
// with the semantic stage off (the defaults) and on (EMBEDDINGS=on, the embedded encoder), for a new
// list and an embedded one.
// Both run in one child process and are measured in alternating rounds (floor, full, floor, full,
// ...) so that load drift on a shared machine hits both alike; the medians and their ratio are
// reported. The ratio is what to read: absolute numbers depend on the machine.
// Tools come from ../shared/bench (real MCP tool definitions) at run time when present.
import { fork } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import type { ToolInfo } from '@catalog-search/core';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);

function loadTools(): { tools: ToolInfo[]; source: string } {
  const catalog = fileURLToPath(new URL('../../shared/bench/smithery_catalog/catalog.jsonl', import.meta.url));
  if (existsSync(catalog)) {
    const tools = readFileSync(catalog, 'utf8')
      .split('\n')
      .filter(Boolean)
      .slice(0, 1000)
      .map((line) => {
        // Only the standard fields, as a router sends them.
        const { toolKey, toolName, serverName, description, inputSchema } = JSON.parse(line) as ToolInfo;
        return { toolKey, toolName, serverName, description, ...(inputSchema ? { inputSchema } : {}) };
      });
    return { tools, source: 'smithery_catalog (first 1,000 tools)' };
  }
  const sample = JSON.parse(readFileSync(new URL('../examples/search-request.json', import.meta.url), 'utf8')) as {
    tools: ToolInfo[];
  };
  const tools = Array.from({ length: 1000 }, (_, index) => {
    const base = sample.tools[index % sample.tools.length]!;
    return { ...base, toolKey: `${base.toolKey}#${index}` };
  });
  return { tools, source: 'examples/search-request.json repeated (../shared/bench not found)' };
}

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function measure(url: string, body: string, token: string): Promise<Figures> {
  const result = await autocannon({
    url,
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body,
    connections: CONNECTIONS,
    duration: DURATION_S,
    warmup: { connections: CONNECTIONS, duration: 1 },
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function medianOf(rounds: Figures[]): Figures {
  return {
    rps: median(rounds.map((r) => r.rps)),
    p50: median(rounds.map((r) => r.p50)),
    p99: median(rounds.map((r) => r.p99)),
    errors: rounds.reduce((sum, r) => sum + r.errors, 0),
  };
}

const { tools, source } = loadTools();
const server = fork(fileURLToPath(new URL('./service-bench-server.ts', import.meta.url)), {
  execArgv: ['--import', 'tsx'],
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
const ports = await new Promise<{
  servicePort: number;
  stageOnPort: number;
  floorPort: number;
  token: string;
  projectTokens: string[];
}>((resolve) => server.once('message', resolve as never));

console.log(
  `tools: ${source}; loopback, ${CONNECTIONS} connections; ${ROUNDS} alternating rounds of ${DURATION_S} s (+1 s warm-up) per route; medians`,
);
console.log('"stage on, new list": EMBEDDINGS=on (the embedded encoder), each round a new project, so its list is');
console.log(
  'new and embedded in the background while the round runs (a list\'s first minute); "stage on, embedded": one project whose list',
);
console.log('was embedded before the rounds (the steady state).');
console.log('| tools | body | route | req/s | p50 ms | p99 ms | non-2xx |');
console.log('|---|---|---|---|---|---|---|');
const summary: string[] = [];
const bodies = [100, 1000].map((count) => ({
  count,
  body: JSON.stringify({
    query: ['scrape the content of a web page', 'save the result as a markdown file'],
    tools: tools.slice(0, count),
    maxResults: 20,
  }),
}));
const search = (port: number) => `http://127.0.0.1:${port}/catalog/search`;
const floorUrl = `http://127.0.0.1:${ports.floorPort}/floor`;

/** Prints a phase's medians and the ratios to its floor. */
function report(count: number, body: string, floor: Figures, routes: ReadonlyArray<readonly [string, Figures]>) {
  const kb = `${Math.round(body.length / 1024)} KB`;
  for (const [route, figures] of [['floor (parse+validate)', floor] as const, ...routes]) {
    console.log(
      `| ${count} | ${kb} | ${route} | ${figures.rps.toFixed(0)} | ${figures.p50} | ${figures.p99} | ${figures.errors} |`,
    );
  }
  for (const [route, figures] of routes) {
    const costRatio = floor.rps / figures.rps;
    const target = route === 'stage off' ? 1.6 : 2;
    summary.push(
      `${count} tools, ${route}: costs ${costRatio.toFixed(2)}× the floor (throughput ratio), p50 ratio ${(figures.p50 / Math.max(floor.p50, 0.01)).toFixed(2)}×` +
        (count === 1000 ? ` — target ≤ ${target}×: ${costRatio <= target ? 'met' : 'NOT met'}` : ''),
    );
  }
}

// The stage off first, for both sizes, while the stage-on service has no list to embed: its background
// lane (a thread of the same process) would otherwise embed the new-list rounds' lists during these
// rounds, which a deployment with EMBEDDINGS=off has no thread for (it moved this ratio by ±0.2).
for (const { count, body } of bodies) {
  const rounds = { floor: [] as Figures[], off: [] as Figures[] };
  for (let round = 0; round < ROUNDS; round += 1) {
    rounds.floor.push(await measure(floorUrl, body, ports.token));
    rounds.off.push(await measure(search(ports.servicePort), body, ports.token));
  }
  report(count, body, medianOf(rounds.floor), [['stage off', medianOf(rounds.off)]]);
}

// The stage on, against the floor measured in the same rounds (whose CPU the background lane shares).
let projectRound = 0;
for (const { count, body } of bodies) {
  // The steady state's project: searched until its list is embedded.
  const steadyToken = ports.projectTokens.at(-1 - (count === 100 ? 0 : 1))!;
  for (let attempt = 0; attempt < 600; attempt += 1) {
    const response = await fetch(search(ports.stageOnPort), {
      method: 'POST',
      headers: { authorization: `Bearer ${steadyToken}`, 'content-type': 'application/json' },
      body,
    });
    if (((await response.json()) as { meta: { semantic?: string } }).meta.semantic === 'hybrid') break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const rounds = { floor: [] as Figures[], fresh: [] as Figures[], steady: [] as Figures[] };
  for (let round = 0; round < ROUNDS; round += 1) {
    rounds.floor.push(await measure(floorUrl, body, ports.token));
    rounds.fresh.push(await measure(search(ports.stageOnPort), body, ports.projectTokens[projectRound++]!));
    rounds.steady.push(await measure(search(ports.stageOnPort), body, steadyToken));
  }
  report(count, body, medianOf(rounds.floor), [
    ['stage on, new list', medianOf(rounds.fresh)],
    ['stage on, embedded', medianOf(rounds.steady)],
  ]);
}
console.log('');
for (const line of summary) console.log(line);
server.disconnect();
server.kill();
