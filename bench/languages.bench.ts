// `npm run bench -- languages`: what the client costs a router with and without a language
// (docs/performance.md). Builds the publishable client (packages/client/scripts/build-package.mjs), then:
//   1. the bundle: bytes and gzip bytes of what importing the client loads (dist/index.js and the chunks
//      it imports statically), and of each language's files (dist/languages/<code>.js and its chunks);
//   2. new processes, taking turns: import the client only, or the client and then Japanese
//      (`@catalog-search/client/languages/ja`) and a first Japanese search of the README's sample list.
//      Per process: the import's CPU time and the heap used after a forced GC, before and after.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { median } from './rounds.js';

const repo = fileURLToPath(new URL('..', import.meta.url));
const client = join(repo, 'packages/client');
const dist = join(client, 'dist');
execFileSync(process.execPath, [join(client, 'scripts/build-package.mjs')], { cwd: client, stdio: 'inherit' });

/** The files a module loads: itself and, transitively, the relative modules it imports statically. */
function staticClosure(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const source = readFileSync(file, 'utf8');
  for (const match of source.matchAll(
    /(?:^|\n)\s*(?:import|export)\s*(?:[^'"();]*?\s*from\s*)?["'](\.{1,2}\/[^"']+)["']/g,
  ))
    staticClosure(join(dirname(file), match[1]!), seen);
  return seen;
}

const size = (files: Iterable<string>): string => {
  let raw = 0;
  let gzip = 0;
  for (const file of files) {
    const bytes = readFileSync(file);
    raw += bytes.length;
    gzip += gzipSync(bytes, { level: 9 }).length;
  }
  return `${(raw / 1e6).toFixed(2)} MB (${(gzip / 1e3).toFixed(0)} KB gzip)`;
};

const core = staticClosure(join(dist, 'index.js'));
console.log(`client bundle, what \`import '@catalog-search/client'\` loads: ${size(core)} in ${core.size} file(s)`);
const japaneseEntry = join(dist, 'languages/ja.js');
const withJapanese = existsSync(japaneseEntry);
if (withJapanese) {
  const all = staticClosure(japaneseEntry, new Set(core));
  // The dictionary is loaded by a dynamic import: count every file of the package that is not the core's.
  const extra = [...new Set([...all].filter((file) => !core.has(file)))];
  const lazy = execFileSync('find', [dist, '-name', '*.js', '-not', '-path', '*/types/*'], { encoding: 'utf8' })
    .split('\n')
    .filter((file) => file !== '' && !core.has(file) && !extra.includes(file));
  console.log(`Japanese (languages/ja.js and the chunks it loads): ${size([...extra, ...lazy])}`);
} else console.log('(no dist/languages/ja.js: the client of this commit carries Japanese in its bundle)');

const script = (japanese: boolean): string => `
  const gc = globalThis.gc;
  gc(); gc();
  const heap0 = process.memoryUsage().heapUsed;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const client = await import(${JSON.stringify(pathToFileURL(join(dist, 'index.js')).href)});
  const importCpu = process.cpuUsage(cpu0);
  const importMs = performance.now() - t0;
  gc(); gc();
  const heap1 = process.memoryUsage().heapUsed;
  let languageCpu = 0, heap2 = heap1;
  if (${japanese}) {
    const cpu1 = process.cpuUsage();
    ${withJapanese ? `await import(${JSON.stringify(pathToFileURL(japaneseEntry).href)});` : ''}
    const { readFileSync } = await import('node:fs');
    const { tools } = JSON.parse(readFileSync(${JSON.stringify(join(repo, 'examples/search-request.json'))}, 'utf8'));
    // A cloud that refuses connections: the client's local fallback answers.
    const c = client.createCatalogSearchClient({ baseUrl: 'http://127.0.0.1:1', token: 'bench' });
    const outcome = await c.search({ query: ['カレンダーに明日の会議を追加して'], tools });
    if (outcome.source !== 'local' || outcome.results[0]?.toolKey !== 'gcal:create_event') throw new Error('unexpected answer');
    const cpu = process.cpuUsage(cpu1);
    languageCpu = (cpu.user + cpu.system) / 1000;
    gc(); gc();
    heap2 = process.memoryUsage().heapUsed;
  }
  console.log(JSON.stringify({ importCpu: (importCpu.user + importCpu.system) / 1000, importMs, heap: heap1 - heap0, languageCpu, languageHeap: heap2 - heap1 }));`;

interface Run {
  importCpu: number;
  importMs: number;
  heap: number;
  languageCpu: number;
  languageHeap: number;
}
const run = (japanese: boolean): Run =>
  JSON.parse(
    execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script(japanese)], {
      cwd: repo,
      encoding: 'utf8',
    }),
  ) as Run;

const ROUNDS = 9;
const plain: Run[] = [];
const japanese: Run[] = [];
for (let round = 0; round < ROUNDS; round += 1) {
  if (round % 2 === 0) {
    plain.push(run(false));
    japanese.push(run(true));
  } else {
    japanese.push(run(true));
    plain.push(run(false));
  }
}
const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(2)} MiB`;
const ms = (value: number): string => `${value.toFixed(1)} ms`;
const of = (runs: Run[], key: keyof Run): number => median(runs.map((r) => r[key]));
console.log(
  `import the client, new process (median of ${ROUNDS}): CPU ${ms(of(plain, 'importCpu'))}, wall ${ms(of(plain, 'importMs'))}, ` +
    `heap +${mib(of(plain, 'heap'))}`,
);
console.log(
  `  the same processes that then load Japanese: import CPU ${ms(of(japanese, 'importCpu'))}, heap +${mib(of(japanese, 'heap'))}; ` +
    `Japanese ${withJapanese ? 'import' : '(in the bundle)'} and a first search, CPU ${ms(of(japanese, 'languageCpu'))}, heap +${mib(of(japanese, 'languageHeap'))}`,
);
