// `npm run bench -- service`: throughput and latency of POST /catalog/search (full search: auth,
// validation, lexical ranking on a warm per-project cache, audit log) against the floor, a bare
// Fastify route that only parses and validates the same body, for 100- and 1,000-tool requests.
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
  const sample = JSON.parse(readFileSync(new URL('../examples/search-request.json', import.meta.url), 'utf8')) as { tools: ToolInfo[] };
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
const ports = await new Promise<{ servicePort: number; floorPort: number; token: string }>((resolve) => server.once('message', resolve as never));

console.log(
  `tools: ${source}; loopback, ${CONNECTIONS} connections; ${ROUNDS} alternating rounds of ${DURATION_S} s (+1 s warm-up) per route; medians`,
);
console.log('| tools | body | route | req/s | p50 ms | p99 ms | non-2xx |');
console.log('|---|---|---|---|---|---|---|');
const summary: string[] = [];
for (const count of [100, 1000]) {
  const body = JSON.stringify({
    query: ['scrape the content of a web page', 'save the result as a markdown file'],
    tools: tools.slice(0, count),
    maxResults: 20,
  });
  const kb = `${Math.round(body.length / 1024)} KB`;
  const floorRounds: Figures[] = [];
  const fullRounds: Figures[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    floorRounds.push(await measure(`http://127.0.0.1:${ports.floorPort}/floor`, body, ports.token));
    fullRounds.push(await measure(`http://127.0.0.1:${ports.servicePort}/catalog/search`, body, ports.token));
  }
  const floor = medianOf(floorRounds);
  const full = medianOf(fullRounds);
  for (const [route, figures] of [['floor (parse+validate)', floor], ['full search', full]] as const) {
    console.log(`| ${count} | ${kb} | ${route} | ${figures.rps.toFixed(0)} | ${figures.p50} | ${figures.p99} | ${figures.errors} |`);
  }
  const costRatio = floor.rps / full.rps;
  summary.push(
    `${count} tools: full search costs ${costRatio.toFixed(2)}× the floor (throughput ratio), p50 ratio ${(full.p50 / Math.max(floor.p50, 0.01)).toFixed(2)}×` +
      (count === 1000 ? ` — target ≤ 2×: ${costRatio <= 2 ? 'met' : 'NOT met'}` : ''),
  );
}
console.log('');
for (const line of summary) console.log(line);
server.disconnect();
server.kill();
