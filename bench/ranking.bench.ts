// Ranking speed: real MCP tools (the first 1,000 and 3,000 of ../shared/bench/smithery_catalog), one request.
//   cold  = a fresh rank cache every run (every tool tokenized, the list prepared)
//   warm  = the same list again with the cache (fresh tool objects, as after the service parses a body)
//   warm, other sub-query = the same tools array, another sub-query (the LLM stage's per-step calls:
//   the cache recognises the list and skips reading its tools' contents)
// Time is CPU time of this process (process.cpuUsage), i.e. "on one core": on a shared machine wall time
// mostly measures the neighbours. The cases run in blocks (a block = 15 runs of one case), the blocks
// of all cases taking turns, so that every case sees the same machine (these machines change speed by
// a third from minute to minute) while keeping its own garbage-collection rhythm (interleaving single
// runs lets one case's garbage be collected inside another's run). Each case is reported as the median
// of its runs, with the middle half of its runs, and as a ratio to the plain BM25 baseline
// (rankOkapiBm25, which re-tokenizes everything on every call) measured in the same blocks.
// Every run gets a fresh copy of the list made just before it (untimed), as a parsed request body is:
// a young-generation collection that falls inside a run copies that list and is part of the figure.
// Targets (1,000 tools): cold < 15 ms, warm < 3 ms. A last section measures cold when every word of the
// list is new to the process (see coldWordCases).
import { createRankCache, rankTools, type ToolInfo } from '../packages/core/src/index.js';
import { rankOkapiBm25 } from '../eval/okapi-bm25.js';
import { processVocabulary } from '../packages/core/src/text/vocabulary.js';
import { tokenize } from '../packages/core/src/text/tokenize.js';
import { madeUpWord } from '../test/fixtures/words.js';
import { loadCatalog } from '../eval/datasets.js';

const query = ['search the web for recent news about electric cars and save a summary to a file'];
const otherQuery = ['create a github issue for the failing build'];

const bench = loadCatalog('smithery_catalog', 3_000);
if (bench === undefined) throw new Error('ranking.bench.ts needs ../shared/bench/smithery_catalog beside the repo');
const catalog: ToolInfo[] = bench.tools;

interface Case {
  label: string;
  /** Untimed preparation before each run. */
  setup: () => unknown;
  run: (state: never) => unknown;
}

const BLOCK = 15;

/** CPU ms of every run of every case: `blocks` blocks per case, the cases' blocks taking turns. */
function measure(cases: Case[], blocks: number): number[][] {
  const samples = cases.map(() => [] as number[]);
  for (const { setup, run } of cases) for (let i = 0; i < 5; i += 1) run(setup() as never); // JIT warm-up
  for (let block = 0; block < blocks; block += 1) {
    for (let k = 0; k < cases.length; k += 1) {
      const index = (k + block) % cases.length;
      const { setup, run } = cases[index]!;
      for (let i = 0; i < BLOCK; i += 1) {
        const state = setup() as never;
        const started = process.cpuUsage();
        run(state);
        const used = process.cpuUsage(started);
        samples[index]!.push((used.user + used.system) / 1000);
      }
    }
  }
  return samples;
}

const quantile = (values: number[], q: number): number =>
  [...values].sort((a, b) => a - b)[Math.floor(q * (values.length - 1))]!;

function report(title: string, cases: Case[], blocks: number): void {
  const samples = measure(cases, blocks);
  const baseline = quantile(samples[0]!, 0.5);
  console.log(
    `${title}: median CPU time of ${blocks * BLOCK} runs per case, in ${blocks} blocks taking turns (node ${process.version})`,
  );
  cases.forEach(({ label }, i) => {
    const values = samples[i]!;
    const median = quantile(values, 0.5);
    const middle = `${quantile(values, 0.25).toFixed(2)}–${quantile(values, 0.75).toFixed(2)}`;
    console.log(
      `  ${label.padEnd(42)} ${median.toFixed(2).padStart(7)} ms  (middle half ${middle.padStart(13)})  ${(median / baseline).toFixed(2)}× baseline`,
    );
  });
}

function casesFor(tools: ToolInfo[], all: boolean): Case[] {
  const clone = (): ToolInfo[] => JSON.parse(JSON.stringify(tools)) as ToolInfo[];
  const warmCache = createRankCache();
  rankTools({ query, tools }, { cache: warmCache });
  const cases: Case[] = [
    {
      label: 'plain BM25 baseline (rankOkapiBm25)',
      setup: clone,
      run: (list: ToolInfo[]) => rankOkapiBm25({ query, tools: list }),
    },
    {
      label: 'rankTools cold (new cache)',
      setup: () => ({ list: clone(), cache: createRankCache() }),
      run: ({ list, cache }: { list: ToolInfo[]; cache: ReturnType<typeof createRankCache> }) =>
        rankTools({ query, tools: list }, { cache }),
    },
  ];
  if (!all) return cases;
  return [
    ...cases,
    { label: 'rankTools without a cache', setup: clone, run: (list: ToolInfo[]) => rankTools({ query, tools: list }) },
    {
      label: 'rankTools warm (same list, new objects)',
      setup: clone,
      run: (list: ToolInfo[]) => rankTools({ query, tools: list }, { cache: warmCache }),
    },
    {
      label: 'rankTools warm, another sub-query',
      setup: () => tools,
      run: (list: ToolInfo[]) => rankTools({ query: otherQuery, tools: list }, { cache: warmCache }),
    },
    {
      label: 'rankTools warm, 3 sub-queries',
      setup: clone,
      run: (list: ToolInfo[]) =>
        rankTools({ query: [...query, ...otherQuery, 'translate text to french'], tools: list }, { cache: warmCache }),
    },
    {
      label: 'rankTools warm, top 20 + explanations',
      setup: clone,
      run: (list: ToolInfo[]) =>
        rankTools({ query, tools: list }, { cache: warmCache, limit: 20 }).map((r) => r.explanation),
    },
  ];
}

/**
 * Cold with every word new to the process: before each run (untimed) the process's memo of words is
 * filled with made-up words until it renews itself, as it does at 60,000 distinct words. Each rank
 * cache now has a vocabulary of its own, so the plain "cold" case (a new cache) already splits, stems
 * and remembers each distinct word of the list anew; this section is kept to compare with earlier runs.
 */
function coldWordCases(tools: ToolInfo[]): Case[] {
  const clone = (): ToolInfo[] => JSON.parse(JSON.stringify(tools)) as ToolInfo[];
  const filler = Array.from({ length: 61_000 }, (_, i) => madeUpWord(i)).join(' ');
  const forgetWords = (): void => {
    tokenize(filler);
    processVocabulary.resetIfFull();
  };
  return [
    {
      label: 'plain BM25 baseline (rankOkapiBm25)',
      setup: clone,
      run: (list: ToolInfo[]) => rankOkapiBm25({ query, tools: list }),
    },
    {
      label: 'rankTools cold, every word new',
      setup: () => {
        forgetWords();
        return clone();
      },
      run: (list: ToolInfo[]) => rankTools({ query, tools: list }, { cache: createRankCache() }),
    },
  ];
}

report('1,000 tools', casesFor(catalog.slice(0, 1_000), true), 4);
// The client's local fallback ranks the whole list a router sends, which can be a few thousand tools.
report(`${catalog.length.toLocaleString('en')} tools`, casesFor(catalog, false), 2);
report('1,000 tools, every word new to the process', coldWordCases(catalog.slice(0, 1_000)), 2);
