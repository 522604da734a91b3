// `npm run eval -- --everyday`: the team's own everyday requests (eval/everyday/requests.json, issue
// #45), typed as people and their agents type them, ranked by our core ranker on four tool lists: the
// repo's sample list (examples/search-request.json), LiveMCPBench's and MCPToolBench++'s catalogs and a
// fixed subset of the Smithery catalog (every tool of the servers the request file names), all read at
// run time. Prints NDCG@10, top-1, MRR and "empty" (answered with nothing although the gold is in the
// list) per list, overall and per kind of request, then the ablation rows: the overall figures with
// each rule family left out (RankOptions.without) and with all of them left out ("none"). Then, when
// eval/everyday/held-out.json is there, the same per-list, overall and per-kind tables for that held-out
// set (written apart from the ranker and from requests.json, and not used for tuning), under "held-out".
import { existsSync, readFileSync } from 'node:fs';
import {
  createRankCache,
  rankTools,
  RULE_FAMILIES,
  type RuleFamily,
  type ToolInfo,
} from '../packages/core/src/index.js';
import { BENCH_DIR, loadCatalog, standardFields } from './datasets.js';
import { scoreQuery } from './metrics.js';

export const EVERYDAY_LISTS = ['sample', 'livemcpbench', 'mcptoolbench_pp', 'smithery'] as const;
type EverydayList = (typeof EVERYDAY_LISTS)[number];

export const EVERYDAY_KINDS = [
  'lowercase-product',
  'abbreviation',
  'joined-form',
  'everyday-verb',
  'everyday-noun',
  'question',
  'vague',
  'typo',
  'exact-name',
  'agent-style',
] as const;
type EverydayKind = (typeof EVERYDAY_KINDS)[number];

interface EverydayRequest {
  list: EverydayList;
  id: string;
  query: string;
  relevant: string[];
  kinds: EverydayKind[];
}

interface EverydayFile {
  note: string;
  /** Smithery server ids (the part of a toolKey before the first ':'): the 'smithery' list is all their tools. */
  smitheryServers: string[];
  requests: EverydayRequest[];
}

const EVERYDAY_FILE = new URL('./everyday/requests.json', import.meta.url);
const HELD_OUT_FILE = new URL('./everyday/held-out.json', import.meta.url);
const SAMPLE_FILE = new URL('../examples/search-request.json', import.meta.url);

export function readEverydayRequests(): EverydayFile {
  return JSON.parse(readFileSync(EVERYDAY_FILE, 'utf8')) as EverydayFile;
}

/** The held-out set (eval/everyday/held-out.json, same format), or undefined when the file is absent. */
export function readHeldOutRequests(): EverydayFile | undefined {
  if (!existsSync(HELD_OUT_FILE)) return undefined;
  return JSON.parse(readFileSync(HELD_OUT_FILE, 'utf8')) as EverydayFile;
}

const serverId = (toolKey: string): string => toolKey.slice(0, toolKey.indexOf(':'));

function benchTools(folder: string): ToolInfo[] {
  const catalog = loadCatalog(folder);
  if (catalog === undefined)
    throw new Error(`${folder} not found in ${BENCH_DIR} (expected ../shared/bench next to the repo)`);
  return catalog.tools;
}

/** The four tool lists, standard fields only; the Smithery subset only, so eval never ranks all 9,970 tools. */
export function loadEverydayLists(file: EverydayFile): Map<EverydayList, ToolInfo[]> {
  const sample = (JSON.parse(readFileSync(SAMPLE_FILE, 'utf8')) as { tools: Parameters<typeof standardFields>[0][] })
    .tools;
  const servers = new Set(file.smitheryServers);
  const smithery = benchTools('smithery_catalog').filter((tool) => servers.has(serverId(tool.toolKey)));
  const found = new Set(smithery.map((tool) => serverId(tool.toolKey)));
  const missing = file.smitheryServers.filter((server) => !found.has(server));
  if (missing.length > 0) throw new Error(`smithery_catalog has no tools of server(s) ${missing.join(', ')}`);
  return new Map<EverydayList, ToolInfo[]>([
    ['sample', sample.map(standardFields)],
    ['livemcpbench', benchTools('livemcpbench')],
    ['mcptoolbench_pp', benchTools('mcptoolbench_pp')],
    ['smithery', smithery],
  ]);
}

/** Throws, naming the request, on a gold key its list lacks (a typo in the file, or a catalog that changed). */
export function checkGold(file: EverydayFile, lists: Map<EverydayList, ToolInfo[]>): void {
  const keys = new Map([...lists].map(([list, tools]) => [list, new Set(tools.map((tool) => tool.toolKey))]));
  for (const request of file.requests) {
    const inList = keys.get(request.list);
    if (inList === undefined) throw new Error(`everyday request ${request.id}: unknown list ${request.list}`);
    if (request.relevant.length === 0) throw new Error(`everyday request ${request.id}: no gold tool`);
    const absent = request.relevant.filter((key) => !inList.has(key));
    if (absent.length > 0)
      throw new Error(`everyday request ${request.id}: gold ${absent.join(', ')} not in list ${request.list}`);
  }
}

interface Figures {
  requests: number;
  'NDCG@10': number;
  'top-1': number;
  MRR: number;
  /** A count, not a share: requests answered with nothing although their gold is in the list. */
  empty: number;
}

interface RequestResult {
  request: EverydayRequest;
  ndcg: number;
  top1: number;
  mrr: number;
  empty: boolean;
  /** The first result's key, for reading the misses in --json. */
  first?: string;
  /** 1-based position of the first gold tool, or null when none is ranked. */
  goldAt: number | null;
}

function figures(results: RequestResult[]): Figures {
  const mean = (pick: (result: RequestResult) => number) =>
    results.reduce((sum, result) => sum + pick(result), 0) / Math.max(results.length, 1);
  return {
    requests: results.length,
    'NDCG@10': mean((r) => r.ndcg),
    'top-1': mean((r) => r.top1),
    MRR: mean((r) => r.mrr),
    empty: results.filter((r) => r.empty).length,
  };
}

/** Every request ranked with `without` left out, each list with a fresh rank cache (as coreRanker keeps one per dataset). */
function rankAll(file: EverydayFile, lists: Map<EverydayList, ToolInfo[]>, without: readonly RuleFamily[]) {
  const results: RequestResult[] = [];
  for (const list of EVERYDAY_LISTS) {
    const tools = lists.get(list)!;
    // A cache per setting too: what it holds may depend on the families in force.
    const cache = createRankCache();
    for (const request of file.requests.filter((r) => r.list === list)) {
      const ranked = rankTools({ query: [request.query], tools }, { cache, without }).map((r) => r.tool.toolKey);
      const scores = scoreQuery(ranked, request.relevant);
      const gold = new Set(request.relevant);
      const at = ranked.findIndex((key) => gold.has(key));
      results.push({
        request,
        ndcg: scores['NDCG@10'],
        top1: ranked[0] !== undefined && gold.has(ranked[0]) ? 1 : 0,
        mrr: scores.MRR,
        empty: ranked.length === 0,
        ...(ranked[0] !== undefined ? { first: ranked[0] } : {}),
        goldAt: at < 0 ? null : at + 1,
      });
    }
  }
  return results;
}

interface AblationRow extends Figures {
  /** The family left out; 'none' is every family left out (the ranking before the rules); 'all on' leaves none out. */
  without: RuleFamily | 'none' | 'all on';
  change: { 'NDCG@10': number; 'top-1': number; empty: number };
}

interface RequestRow {
  id: string;
  list: string;
  ndcg: number;
  top1: number;
  empty: boolean;
  first?: string;
  goldAt: number | null;
}

interface SetTables {
  lists: Record<string, Figures & { tools: number }>;
  overall: Figures;
  kinds: Record<string, Figures>;
}

interface EverydayReport extends SetTables {
  ablation: AblationRow[];
  requests: RequestRow[];
  /** The held-out set (eval/everyday/held-out.json), all rule families on; absent when the file is. */
  heldOut?: SetTables & { requests: RequestRow[] };
}

const num = (value: number, width = 7) => value.toFixed(3).padStart(width);
const signed = (value: number, digits = 3, width = 8) =>
  `${value > 0 ? '+' : ''}${value.toFixed(digits)}`.padStart(width);

const requestRows = (results: RequestResult[]): RequestRow[] =>
  results.map(({ request, ndcg, top1, empty, first, goldAt }) => ({
    id: request.id,
    list: request.list,
    ndcg,
    top1,
    empty,
    ...(first !== undefined ? { first } : {}),
    goldAt,
  }));

/** Prints (under `heading`) and returns the per-list, overall and per-kind tables of one ranked set. */
function printTables(heading: string, results: RequestResult[], lists: Map<EverydayList, ToolInfo[]>): SetTables {
  const tables: SetTables = { lists: {}, overall: figures(results), kinds: {} };
  console.log(`\n== ${heading} ==`);
  console.log(`  ${'list'.padEnd(16)} requests  tools  NDCG@10   top-1     MRR  empty`);
  const row = (name: string, f: Figures, tools = '') =>
    console.log(
      `  ${name.padEnd(16)} ${String(f.requests).padStart(8)} ${tools.padStart(6)} ${num(f['NDCG@10'], 8)} ${num(f['top-1'])} ${num(f.MRR)} ${String(f.empty).padStart(6)}`,
    );
  for (const list of EVERYDAY_LISTS) {
    const f = figures(results.filter((r) => r.request.list === list));
    const tools = lists.get(list)!.length;
    tables.lists[list] = { ...f, tools };
    row(list, f, String(tools));
  }
  row('OVERALL', tables.overall);
  const empties = results.filter((r) => r.empty).map((r) => r.request.id);
  console.log(`  answered with nothing: ${empties.length === 0 ? 'none' : empties.join(', ')}`);

  console.log('\n== By kind (a request counts under each of its kinds) ==');
  console.log(`  ${'kind'.padEnd(18)} requests  NDCG@10   top-1  empty`);
  for (const kind of EVERYDAY_KINDS) {
    const f = figures(results.filter((r) => r.request.kinds.includes(kind)));
    tables.kinds[kind] = f;
    console.log(
      `  ${kind.padEnd(18)} ${String(f.requests).padStart(8)} ${num(f['NDCG@10'], 8)} ${num(f['top-1'])} ${String(f.empty).padStart(6)}`,
    );
  }
  return tables;
}

export function runEverydayEval(): EverydayReport {
  const started = performance.now();
  const file = readEverydayRequests();
  const lists = loadEverydayLists(file);
  checkGold(file, lists);

  const allOn = rankAll(file, lists, []);
  const report: EverydayReport = {
    ...printTables(
      'Everyday requests (eval/everyday/requests.json, issue #45): ours, every rule family on',
      allOn,
      lists,
    ),
    ablation: [],
    requests: requestRows(allOn),
  };

  console.log('\n== Ablation: overall with one rule family left out (change against all on); none = all left out ==');
  console.log(`  ${'left out'.padEnd(14)} NDCG@10   top-1     MRR  empty   ΔNDCG@10  Δtop-1  Δempty`);
  const settings: [AblationRow['without'], readonly RuleFamily[]][] = [
    ['all on', []],
    ...RULE_FAMILIES.map((family): [RuleFamily, readonly RuleFamily[]] => [family, [family]]),
    ['none', RULE_FAMILIES],
  ];
  for (const [name, without] of settings) {
    const f = name === 'all on' ? report.overall : figures(rankAll(file, lists, without));
    const change = {
      'NDCG@10': f['NDCG@10'] - report.overall['NDCG@10'],
      'top-1': f['top-1'] - report.overall['top-1'],
      empty: f.empty - report.overall.empty,
    };
    report.ablation.push({ without: name, ...f, change });
    console.log(
      `  ${name.padEnd(14)} ${num(f['NDCG@10'])} ${num(f['top-1'])} ${num(f.MRR)} ${String(f.empty).padStart(6)}   ${signed(change['NDCG@10'])} ${signed(change['top-1'], 3, 7)} ${signed(change.empty, 0, 7)}`,
    );
  }

  // The held-out set: the same tables, every rule family on (no ablation), under its own heading.
  const heldOut = readHeldOutRequests();
  if (heldOut !== undefined) {
    const sameServers = heldOut.smitheryServers.join('\n') === file.smitheryServers.join('\n');
    const heldOutLists = sameServers ? lists : loadEverydayLists(heldOut);
    checkGold(heldOut, heldOutLists);
    const heldOutResults = rankAll(heldOut, heldOutLists, []);
    report.heldOut = {
      ...printTables(
        'held-out (eval/everyday/held-out.json, not used for tuning): ours, every rule family on',
        heldOutResults,
        heldOutLists,
      ),
      requests: requestRows(heldOutResults),
    };
  }
  console.log(`\neveryday eval took ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return report;
}
