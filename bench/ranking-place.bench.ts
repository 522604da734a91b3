// `npm run bench -- ranking-place`: what the ranking thread (src/lexical/ranking-thread.ts) costs the
// everyday search it should leave alone: a router's 1,000-tool list, sent again as it was or by its
// `toolSet` id, with one or two short sub-queries. Two apps in this process, one with the thread (rankings
// routed by their expected cost, src/lexical/ranking-cost.ts) and one without (every ranking on the
// event loop, as before the thread), measured in alternating rounds (bench/rounds.ts); each round sends
// SEARCHES searches one after another through app.inject and takes their median time. The ratio is what
// to read. Tools from ../shared/bench (real MCP tool definitions) at run time when present.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ToolInfo } from '@catalog-search/core';
import pino from 'pino';
import { buildApp } from '../src/app.js';
import { syntheticTools } from '../test/fixtures/tools.js';
import { benchConfig } from './bench-service.js';
import { alternatingRounds, median } from './rounds.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 12);
const SEARCHES = 40;

function loadTools(): { tools: ToolInfo[]; source: string } {
  const catalog = fileURLToPath(new URL('../../shared/bench/smithery_catalog/catalog.jsonl', import.meta.url));
  if (!existsSync(catalog)) return { tools: syntheticTools(1_000), source: 'synthetic (../shared/bench not found)' };
  const tools = readFileSync(catalog, 'utf8')
    .split('\n')
    .filter(Boolean)
    .slice(0, 1_000)
    .map((line) => {
      const { toolKey, toolName, serverName, description } = JSON.parse(line) as ToolInfo;
      return { toolKey, toolName, serverName, description };
    });
  return { tools, source: 'smithery_catalog (first 1,000 tools)' };
}

const { tools, source } = loadTools();
// Logging as in production (the request and audit lines), into /dev/null.
const logStream = () => pino.destination({ dest: '/dev/null', sync: false });
const withThread = buildApp(benchConfig({ EMBEDDINGS: 'off' }), { logStream: logStream() });
const loopOnly = buildApp(benchConfig({ EMBEDDINGS: 'off' }), { logStream: logStream(), rankingThread: false });
await Promise.all([withThread.ready(), loopOnly.ready()]);

async function search(app: typeof withThread, payload: Record<string, unknown>): Promise<{ toolSet: string }> {
  const token = app.jwt.sign({ projectId: 'bench', sub: 'bench' }, { expiresIn: '1h' });
  const response = await app.inject({
    method: 'POST',
    url: '/v1/catalog/search',
    headers: { authorization: `Bearer ${token}` },
    payload,
  });
  if (response.statusCode !== 200) throw new Error(`${response.statusCode} ${response.body}`);
  return response.json<{ meta: { toolSet: string } }>().meta;
}

const cases: { name: string; body: (toolSet: string) => Record<string, unknown> }[] = [
  { name: 'sent again in full, 1 sub-query', body: () => ({ query: ['create a github issue'], tools }) },
  {
    name: 'by toolSet id, 2 sub-queries',
    body: (toolSet) => ({ query: ['find the weather in paris', 'send a slack message'], toolSet }),
  },
];

console.log(`${source}; median ms a search, ${SEARCHES} a round, ${ROUNDS} rounds (the thread on / off)`);
for (const { name, body } of cases) {
  // Warm: each app has the list held and prepared before it is measured.
  const ids = new Map<typeof withThread, string>();
  for (const app of [withThread, loopOnly]) {
    const { toolSet } = await search(app, { query: ['warm up'], tools });
    ids.set(app, toolSet);
    for (let at = 0; at < 3; at += 1) await search(app, body(toolSet));
  }
  const round = (app: typeof withThread) => async () => {
    const times: number[] = [];
    for (let at = 0; at < SEARCHES; at += 1) {
      const started = performance.now();
      await search(app, body(ids.get(app)!));
      times.push(performance.now() - started);
    }
    return median(times);
  };
  const { a, b } = await alternatingRounds(ROUNDS, round(withThread), round(loopOnly));
  const ratios = a.map((on, at) => on / b[at]!);
  console.log(
    `${name.padEnd(34)} on ${median(a).toFixed(2)} ms, off ${median(b).toFixed(2)} ms; ` +
      `on/off per round median ${median(ratios).toFixed(3)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`,
  );
}
await Promise.all([withThread.close(), loopOnly.close()]);
