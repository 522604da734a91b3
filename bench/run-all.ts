// `npm run bench`: runs every bench/*.bench.ts in its own process, one after another, so that one
// benchmark's warm caches or open sockets cannot flatter the next. `npm run bench -- NAME` runs
// only the files whose name contains NAME. Each header gives the machine's load average before and after
// the file ran: on a shared machine the figures depend on it (docs/performance.md).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const filter = process.argv[2] ?? '';
const files = readdirSync(dir)
  .filter((name) => name.endsWith('.bench.ts') && name.includes(filter))
  .sort();
let failed = 0;
const load = (): string => loadavg()[0]!.toFixed(2);
for (const file of files) {
  console.log(`\n### ${file} (node ${process.version}, load average ${load()})`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', `${dir}${file}`], { stdio: 'inherit' });
  console.log(`(load average ${load()} at the end)`);
  if (run.status !== 0) failed += 1;
}
if (files.length === 0) console.log(`no benchmark matches "${filter}"`);
process.exit(failed > 0 ? 1 : 0);
