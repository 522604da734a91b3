// Ranking cost against another checkout's core, in one process: the cases of ranking.bench.ts (1,000
// Smithery tools), this tree's core and the other's taking turns block by block, so both see the same
// machine. It answers "what does this change cost?" as a ratio, which a shared machine's load cannot
// fake as a pair of separate runs can. Each case gives the median of the rounds' ratios (this tree's
// block ÷ the other's, side by side), then both cores' medians and minimums.
//
//   git worktree add /tmp/before <commit> && (cd /tmp/before && npm ci)
//   AGAINST=/tmp/before npm run bench -- ranking-against
//
// Without AGAINST it says so and measures nothing (`npm run bench` runs every file).
import { createRankCache, rankTools, type RankCache, type ToolInfo } from '../packages/core/src/index.js';
import { loadCatalog } from '../eval/datasets.js';
import { median, spreadCollections } from './rounds.js';

type Core = { createRankCache: typeof createRankCache; rankTools: typeof rankTools };

const against = process.env.AGAINST;
if (against === undefined) {
  console.log('ranking-against: set AGAINST to another checkout (with its own node_modules) to compare with');
  process.exit(0);
}
const other = (await import(`${against}/packages/core/src/index.ts`)) as Core;
const cores: Array<{ label: string; core: Core }> = [
  { label: 'AGAINST', core: other },
  { label: 'this tree', core: { createRankCache, rankTools } },
];

const bench = loadCatalog('smithery_catalog', 1_000);
if (bench === undefined) throw new Error('ranking-against.bench.ts needs ../shared/bench/smithery_catalog');
const tools: ToolInfo[] = bench.tools;
const query = ['search the web for recent news about electric cars and save a summary to a file'];
const otherQuery = ['create a github issue for the failing build'];
const clone = (): ToolInfo[] => JSON.parse(JSON.stringify(tools)) as ToolInfo[];

interface Case {
  label: string;
  /** Untimed, before each run: the list the run ranks. */
  list: () => ToolInfo[];
  run: (core: Core, cache: RankCache, list: ToolInfo[]) => unknown;
}

// The ranking bench's cases (see ranking.bench.ts for what each stands for), and the bench request on
// the same array (a list held by reference: only scoring differs).
const cases: Case[] = [
  {
    label: 'cold (new cache)',
    list: clone,
    run: (core, _, list) => core.rankTools({ query, tools: list }, { cache: core.createRankCache() }),
  },
  {
    label: 'warm (same list, new objects)',
    list: clone,
    run: (core, cache, list) => core.rankTools({ query, tools: list }, { cache }),
  },
  {
    label: 'warm, another sub-query',
    list: () => tools,
    run: (core, cache, list) => core.rankTools({ query: otherQuery, tools: list }, { cache }),
  },
  {
    label: 'warm, 3 sub-queries',
    list: clone,
    run: (core, cache, list) =>
      core.rankTools({ query: [...query, ...otherQuery, 'translate text to french'], tools: list }, { cache }),
  },
  {
    label: 'warm, top 20 + explanations',
    list: clone,
    run: (core, cache, list) => core.rankTools({ query, tools: list }, { cache, limit: 20 }).map((r) => r.explanation),
  },
  {
    label: 'warm, same array',
    list: () => tools,
    run: (core, cache, list) => core.rankTools({ query, tools: list }, { cache }),
  },
];

const RUNS_PER_BLOCK = 8;
const BLOCKS = 20;
const caches = cores.map(({ core }) => {
  const cache = core.createRankCache();
  core.rankTools({ query, tools }, { cache });
  return cache;
});
const cpuMs = (): number => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
};

/** CPU ms per run of one block of `c` on core `i`. */
function block(c: Case, i: number): number {
  let spent = 0;
  for (let k = 0; k < RUNS_PER_BLOCK; k += 1) {
    const list = c.list();
    spreadCollections();
    const started = cpuMs();
    c.run(cores[i]!.core, caches[i]!, list);
    spent += cpuMs() - started;
  }
  return spent / RUNS_PER_BLOCK;
}

console.log(
  `this tree against ${against}: CPU ms per search, ${BLOCKS} rounds of a block of ${RUNS_PER_BLOCK} per core`,
);
for (const c of cases) {
  for (let i = 0; i < cores.length; i += 1) block(c, i); // JIT warm-up
  const before: number[] = [];
  const now: number[] = [];
  // Per round, the two blocks side by side: the median of these ratios follows the machine's changes.
  const ratios: number[] = [];
  for (let b = 0; b < BLOCKS; b += 1) {
    for (const i of b % 2 === 0 ? [0, 1] : [1, 0]) (i === 0 ? before : now).push(block(c, i));
    ratios.push(now.at(-1)! / before.at(-1)!);
  }
  console.log(
    `  ${c.label.padEnd(30)} ${median(ratios).toFixed(2)}× (rounds' middle half ${quartiles(ratios)})` +
      `   median ${median(before).toFixed(3)} → ${median(now).toFixed(3)} ms, minimum ${Math.min(...before).toFixed(3)} → ${Math.min(...now).toFixed(3)} ms`,
  );
}

function quartiles(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number): string => sorted[Math.floor(q * (sorted.length - 1))]!.toFixed(2);
  return `${at(0.25)}–${at(0.75)}`;
}
