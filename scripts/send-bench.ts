// Sends every catalog and every query in ../shared/bench through the HTTP API as a router would:
// the tools as the datasets list them (the five standard fields, verbatim: empty names included),
// in chunks of at most 1,000 tools, each query verbatim with the chunk that holds its first
// relevant tool, every chunk at least once, and every chunk once more in the grouped MCP form.
// Prints per dataset: requests, rejections (any status but 200), skipped tools, and the wire size
// of the two forms. Exits non-zero on any rejection.
//
//   npm run bench:requests                  # everything (about 6,000 requests)
//   npm run bench:requests -- --sample 5    # 5 queries per dataset
//   npm run bench:requests -- --digest      # also a SHA-256 of every answer per dataset: a refactoring
//                                           # that must not change rankings prints the same digests
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { BENCH_DIR } from '../eval/datasets.js';
import { buildApp } from '../src/app.js';
import { parseConfig } from '../src/config/index.js';
import { claims, signJwt } from '../test/helpers/tokens.js';

export const CHUNK_TOOLS = 1_000;
const STANDARD_FIELDS = ['toolKey', 'toolName', 'serverName', 'description', 'inputSchema'] as const;

type Row = Record<string, unknown>;

export interface DatasetReport {
  dataset: string;
  tools: number;
  chunks: number;
  queries: number;
  requests: number;
  rejections: number;
  /** Tools skipped as unusable, counted once per tool (from each chunk's answers). */
  skippedTools: number;
  /** Example reasons, one per distinct message. */
  skipReasons: string[];
  /** JSON bytes of the whole catalog as `tools` and as `servers`, raw and gzipped. */
  wire: { toolsBytes: number; serversBytes: number; toolsGzip: number; serversGzip: number };
  /** The first rejections, for the log. */
  rejected: string[];
  /** SHA-256 of every answer's results and meta in request order (volatile meta fields left out). */
  digest: string;
}

function readJsonl(path: string): Row[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Row);
}

/** The fields a router sends, exactly as the dataset has them. */
function asRouterSends(row: Row): Row {
  const tool: Row = {};
  for (const field of STANDARD_FIELDS) if (field in row) tool[field] = row[field];
  return tool;
}

/** The grouped form: tools by server id (the toolKey before its first `:`), each an MCP Tool. */
export function groupByServer(tools: Row[]): { serverId: string; serverName?: string; tools: Row[] }[] {
  const servers = new Map<string, { serverId: string; serverName?: string; tools: Row[] }>();
  for (const tool of tools) {
    const key = String(tool.toolKey);
    const colon = key.indexOf(':');
    const serverId = colon < 0 ? key : key.slice(0, colon);
    let server = servers.get(serverId);
    if (!server) {
      server =
        typeof tool.serverName === 'string'
          ? { serverId, serverName: tool.serverName, tools: [] }
          : { serverId, tools: [] };
      servers.set(serverId, server);
    }
    const mcpTool: Row = { name: colon < 0 ? tool.toolName : key.slice(colon + 1) };
    if ('description' in tool) mcpTool.description = tool.description;
    mcpTool.inputSchema = tool.inputSchema ?? { type: 'object' };
    server.tools.push(mcpTool);
  }
  return [...servers.values()];
}

export function benchDatasets(): string[] {
  if (!existsSync(BENCH_DIR)) return [];
  return readdirSync(BENCH_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(BENCH_DIR, entry.name, 'catalog.jsonl')))
    .map((entry) => entry.name)
    .sort();
}

export interface SendOptions {
  /** Service origin, e.g. http://127.0.0.1:8080. */
  baseUrl: string;
  token: string;
  /** At most this many queries of the dataset (all when absent). */
  maxQueries?: number;
  /** Requests in flight at once. */
  concurrency?: number;
}

export async function sendDataset(dataset: string, options: SendOptions): Promise<DatasetReport> {
  const dir = join(BENCH_DIR, dataset);
  const tools = readJsonl(join(dir, 'catalog.jsonl')).map(asRouterSends);
  const queryFile = join(dir, 'queries.jsonl');
  const allQueries = existsSync(queryFile) ? readJsonl(queryFile) : [];
  const queries = allQueries.slice(0, options.maxQueries ?? allQueries.length);
  const chunks: Row[][] = [];
  for (let start = 0; start < tools.length; start += CHUNK_TOOLS) chunks.push(tools.slice(start, start + CHUNK_TOOLS));
  const chunkOf = new Map<string, number>();
  chunks.forEach((chunk, c) =>
    chunk.forEach((tool) => chunkOf.has(String(tool.toolKey)) || chunkOf.set(String(tool.toolKey), c)),
  );

  const bodies: { body: unknown; chunk: number }[] = [];
  queries.forEach((q, i) => {
    const relevant = Array.isArray(q.relevant) ? (q.relevant as string[]) : [];
    const chunk = relevant.map((key) => chunkOf.get(key)).find((c) => c !== undefined) ?? i % chunks.length;
    bodies.push({ body: { query: [q.query], tools: chunks[chunk] }, chunk });
  });
  const sentChunks = new Set(bodies.map((entry) => entry.chunk));
  const probe = typeof queries[0]?.query === 'string' ? (queries[0].query as string) : 'find a tool for this task';
  chunks.forEach((chunk, c) => {
    if (!sentChunks.has(c)) bodies.push({ body: { query: [probe], tools: chunk }, chunk: c });
    bodies.push({ body: { query: [probe], servers: groupByServer(chunk) }, chunk: c });
  });

  const report: DatasetReport = {
    dataset,
    tools: tools.length,
    chunks: chunks.length,
    queries: queries.length,
    requests: 0,
    rejections: 0,
    skippedTools: 0,
    skipReasons: [],
    wire: wireSizes(tools),
    rejected: [],
    digest: '',
  };
  const answers: string[] = new Array(bodies.length).fill('');
  const skippedPerChunk = new Map<number, number>();
  const reasons = new Set<string>();
  let next = 0;
  const worker = async () => {
    while (next < bodies.length) {
      const index = next++;
      const { body, chunk } = bodies[index]!;
      const response = await fetch(`${options.baseUrl}/v1/catalog/search`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${options.token}`,
          'content-type': 'application/json',
          'content-encoding': 'gzip',
        },
        body: gzipSync(JSON.stringify(body)),
      });
      const answer = (await response.json()) as {
        results?: unknown;
        meta?: { skippedCount?: number; skipped?: { reason: string }[] };
        detail?: string;
      };
      report.requests += 1;
      answers[index] = `${response.status} ${stableAnswer(answer)}`;
      if (response.status !== 200) {
        report.rejections += 1;
        if (report.rejected.length < 5) report.rejected.push(`${response.status} ${answer.detail ?? ''}`);
        continue;
      }
      skippedPerChunk.set(chunk, Math.max(skippedPerChunk.get(chunk) ?? 0, answer.meta?.skippedCount ?? 0));
      // Index numbers differ per tool; the kind of problem is what is worth printing.
      for (const entry of answer.meta?.skipped ?? []) reasons.add(entry.reason.replace(/\/\d+/g, '/N'));
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 4 }, worker));
  report.skippedTools = [...skippedPerChunk.values()].reduce((sum, count) => sum + count, 0);
  report.skipReasons = [...reasons];
  report.digest = createHash('sha256').update(answers.join('\n')).digest('hex');
  return report;
}

/** An answer without what differs between two runs of the same code (ids, timings). */
function stableAnswer(answer: { results?: unknown; meta?: object; detail?: string }): string {
  const meta = Object.fromEntries(
    Object.entries(answer.meta ?? {}).filter(([key]) => !/requestId|Ms$|timings/.test(key)),
  );
  return JSON.stringify({ results: answer.results, meta, detail: answer.detail });
}

function wireSizes(tools: Row[]): DatasetReport['wire'] {
  const asTools = JSON.stringify({ query: ['q'], tools });
  const asServers = JSON.stringify({ query: ['q'], servers: groupByServer(tools) });
  return {
    toolsBytes: Buffer.byteLength(asTools),
    serversBytes: Buffer.byteLength(asServers),
    toolsGzip: gzipSync(asTools).length,
    serversGzip: gzipSync(asServers).length,
  };
}

/** The service with its production defaults, in this process on a loopback port, and a token for it. */
export async function startLocalService(): Promise<{ baseUrl: string; token: string; close: () => Promise<void> }> {
  const secret = randomBytes(32).toString('hex');
  const config = parseConfig({
    AUTH_JWT_SECRET: secret,
    AUTH_ISSUER: 'https://router.example',
    AUTH_AUDIENCE: 'catalog-search',
    RATE_LIMIT_PER_MINUTE: '0',
    // One project sends every catalog: the per-project work and byte budgets would refuse it part-way.
    RATE_LIMIT_WORK_PER_MINUTE: '0',
    RATE_LIMIT_MB_PER_MINUTE: '0',
    LOG_LEVEL: 'warn',
    // What is checked here is that requests are accepted; embedding ~25,000 tools in the background
    // would only slow the run (the semantic stage has its own tests and bench).
    EMBEDDINGS: 'off',
  });
  const app = buildApp(config);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  const token = signJwt(
    claims({ iss: 'https://router.example', aud: 'catalog-search', exp: Math.floor(Date.now() / 1000) + 3600 }),
    {
      alg: 'HS256',
      key: secret,
    },
  );
  return { baseUrl: `http://127.0.0.1:${address.port}`, token, close: () => app.close() };
}

async function main(): Promise<void> {
  const sampleAt = process.argv.indexOf('--sample');
  const maxQueries = sampleAt > 0 ? Number(process.argv[sampleAt + 1]) : undefined;
  const digests = process.argv.includes('--digest');
  const datasets = benchDatasets();
  if (datasets.length === 0) throw new Error(`no datasets at ${BENCH_DIR}`);
  const service = await startLocalService();
  let rejections = 0;
  try {
    console.log(
      'dataset              tools chunks queries requests rejected skipped  tools-form  servers-form  saved (gzip saved)',
    );
    for (const dataset of datasets) {
      const started = performance.now();
      const report = await sendDataset(dataset, { ...service, ...(maxQueries === undefined ? {} : { maxQueries }) });
      rejections += report.rejections;
      const { toolsBytes, serversBytes, toolsGzip, serversGzip } = report.wire;
      const saved = (a: number, b: number) => `${(((a - b) / a) * 100).toFixed(1)} %`;
      console.log(
        `${dataset.padEnd(20)} ${String(report.tools).padStart(5)} ${String(report.chunks).padStart(6)} ${String(report.queries).padStart(7)} ` +
          `${String(report.requests).padStart(8)} ${String(report.rejections).padStart(8)} ${String(report.skippedTools).padStart(7)} ` +
          `${kb(toolsBytes).padStart(11)} ${kb(serversBytes).padStart(13)}  ${saved(toolsBytes, serversBytes)} (${saved(toolsGzip, serversGzip)})` +
          `  ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
      for (const reason of report.skipReasons) console.log(`    skipped: ${reason}`);
      for (const line of report.rejected) console.log(`    REJECTED: ${line}`);
      if (digests) console.log(`    digest: ${report.digest}`);
    }
  } finally {
    await service.close();
  }
  console.log(rejections === 0 ? 'every request answered 200' : `${rejections} requests rejected`);
  if (rejections > 0) process.exitCode = 1;
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
