// Loads the public tool-retrieval datasets from ../shared/bench (relative to the repo root) and samples
// their queries deterministically. Rankers see only the five standard tool fields: the datasets' extras
// (`sourceDoc`, `serverDescription`, ...) and query `instruction`s would leak what the labels know.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ToolInfo } from '../packages/core/src/index.js';
import { hash53 } from './sample-hash.js';

// BENCH_DIR overrides the place (a checkout whose parent folder holds another `shared` folder).
export const BENCH_DIR = process.env.BENCH_DIR
  ? join(process.env.BENCH_DIR, '/')
  : fileURLToPath(new URL('../../shared/bench/', import.meta.url));

export interface EvalQuery {
  id: string;
  /** Sub-queries as sent to the ranker (the datasets have one request string each). */
  query: string[];
  relevant: string[];
}

export interface Dataset {
  name: string;
  tools: ToolInfo[];
  /** Sampled queries (empty for catalog-only datasets). */
  queries: EvalQuery[];
  /** Query count before sampling. */
  totalQueries: number;
}

interface LoadOptions {
  /** At most this many queries per dataset, chosen by a hash of the query id (stable across runs). */
  maxQueries?: number;
  /** Only datasets whose folder name contains one of these. */
  only?: string[];
}

function readJsonl<T>(path: string): T[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T);
}

type RawTool = ToolInfo & Record<string, unknown>;
interface RawQuery {
  id: string | number;
  query: string;
  relevant: string[];
}

/** The five standard fields only. */
export function standardFields(raw: RawTool): ToolInfo {
  const tool: ToolInfo = { toolKey: raw.toolKey, toolName: raw.toolName, serverName: raw.serverName };
  if (typeof raw.description === 'string') tool.description = raw.description;
  if (raw.inputSchema !== undefined) tool.inputSchema = raw.inputSchema;
  return tool;
}

/** Deterministic sample: the `max` queries with the smallest hash of their id, kept in file order. */
export function sampleQueries<T extends { id: string }>(queries: T[], max: number): T[] {
  if (queries.length <= max) return queries;
  const chosen = new Set(
    [...queries]
      .map((q) => ({ id: q.id, h: hash53(q.id, 7) }))
      .sort((a, b) => a.h - b.h)
      .slice(0, max)
      .map((q) => q.id),
  );
  return queries.filter((q) => chosen.has(q.id));
}

/**
 * One dataset's tools (standard fields only) and its query texts, for benchmarks and tests that need a
 * real catalog. `undefined` when ../shared/bench is not beside the repo.
 */
export function loadCatalog(folder: string, maxTools = Infinity): { tools: ToolInfo[]; queries: string[] } | undefined {
  const dir = join(BENCH_DIR, folder);
  if (!existsSync(join(dir, 'catalog.jsonl'))) return undefined;
  const tools = readJsonl<RawTool>(join(dir, 'catalog.jsonl')).slice(0, maxTools).map(standardFields);
  const queryFile = join(dir, 'queries.jsonl');
  const queries = existsSync(queryFile) ? readJsonl<RawQuery>(queryFile).map((q) => q.query) : [];
  return { tools, queries };
}

export function loadDatasets(options: LoadOptions = {}): Dataset[] {
  if (!existsSync(BENCH_DIR))
    throw new Error(`datasets not found at ${BENCH_DIR} (expected ../shared/bench next to the repo)`);
  const names = readdirSync(BENCH_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(BENCH_DIR, entry.name, 'catalog.jsonl')))
    .map((entry) => entry.name)
    .filter((name) => !options.only || options.only.some((part) => name.includes(part)))
    .sort();
  return names.map((name) => {
    const dir = join(BENCH_DIR, name);
    const tools = readJsonl<RawTool>(join(dir, 'catalog.jsonl')).map(standardFields);
    const queryFile = join(dir, 'queries.jsonl');
    const all = existsSync(queryFile)
      ? readJsonl<RawQuery>(queryFile).map((q) => ({ id: String(q.id), query: [q.query], relevant: q.relevant }))
      : [];
    return { name, tools, queries: sampleQueries(all, options.maxQueries ?? Infinity), totalQueries: all.length };
  });
}
