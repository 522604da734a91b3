// What each kind of request is charged against its project's work budget (fair-share.ts: ranking's
// measured CPU time and the filter rules', reports by the characters learning reads) beside the CPU
// time the whole request took in this process (process.cpuUsage around app.inject: token, parsing,
// validation, ranking, the answer; the filter thread's CPU is the process's too). Issue #47 asked for
// every request's charge to be within 2× of its CPU. Requests one after another, each kind's first
// (warm-up: languages' first use, a new list) left out; median of ROUNDS.
import { Writable } from 'node:stream';
import { buildApp } from '../src/app.js';
import { WORK_PER_CPU_MS } from '../src/fairness/fair-share.js';
import { reportWork } from '../src/learning/report-work.js';
import { sampleTools } from '../test/fixtures/tools.js';
import { heavyBody } from '../test/reliability/heavy-sender.js';
import { benchConfig } from './bench-service.js';
import { median } from './rounds.js';

const ROUNDS = 9;

// Each search's audit line carries its work (src/search/audit.ts).
let lastWork: number;
const logStream = new Writable({
  write(chunk: Buffer, _encoding, done) {
    for (const line of chunk.toString().split('\n')) {
      const work = /"audit":"search".*"work":(\d+)/.exec(line)?.[1];
      if (work !== undefined) lastWork = Number(work);
    }
    done();
  },
});
const app = buildApp(benchConfig({ EMBEDDINGS: 'off' }), { logStream });
await app.ready();
const token = app.jwt.sign({ projectId: 'bench', sub: 'bench' }, { expiresIn: '1h' });

const randomText = (length: number, from: number, to: number) =>
  Array.from({ length }, () => String.fromCodePoint(from + Math.floor(Math.random() * (to - from)))).join('');
const newWords = (count: number) =>
  Array.from({ length: count }, () => randomText(5 + Math.floor(Math.random() * 5), 0x61, 0x7b)).join(' ');
const oneTool = sampleTools.slice(0, 1);
const sentence = 'create a calendar event for the weekly team meeting and invite everyone on the list ';
const englishQuery = Array.from({ length: 16 }, () => sentence.repeat(24).slice(0, 2_000));
const everyday = ['find github repos for rust web frameworks', 'post the release notes to the team channel'];

// Sent as its JSON text: serialising 4.5 MB in app.inject would be counted as the service's CPU.
const heavy = heavyBody();
const heavyBodyOnce = () => heavy;

interface Kind {
  name: string;
  path?: string;
  body: () => unknown;
  /** The work charged for a report (the route charges it before learning runs). */
  charged?: (body: unknown) => number;
}
const kinds: Kind[] = [
  // The floor: what any request costs besides its work (token, HTTP, parsing, the answer, the audit line).
  { name: 'floor: one word, one tool', body: () => ({ query: ['calendar'], tools: oneTool }) },
  { name: 'English, sample list, 2 queries', body: () => ({ query: everyday, tools: sampleTools }) },
  { name: 'English, 16 × 2,000 chars, 1 tool', body: () => ({ query: englishQuery, tools: oneTool }) },
  {
    name: 'Japanese, 16 × 2,000 random chars, 1 tool',
    body: () => ({
      query: Array.from({ length: 16 }, () => randomText(1_000, 0x3041, 0x3097) + randomText(1_000, 0x4e00, 0x9fa0)),
      tools: oneTool,
    }),
  },
  {
    name: 'Chinese, 16 × 2,000 random chars, 1 tool',
    body: () => ({ query: Array.from({ length: 16 }, () => randomText(2_000, 0x4e00, 0x9fa0)), tools: oneTool }),
  },
  {
    name: 'never-seen words, 300 new tools, 4 queries',
    body: () => ({
      query: Array.from({ length: 4 }, () => newWords(12)),
      tools: Array.from({ length: 300 }, (_, at) => ({
        toolKey: `flood:${at}_${randomText(8, 0x61, 0x7b)}`,
        toolName: `tool_${at}`,
        serverName: 'Flood',
        description: newWords(20),
      })),
    }),
  },
  // The stall scenario's heavy tenant (test/reliability/search-stalls.test.ts): the same 4.5 MB body again.
  { name: 'heavy: 16 queries × 5,000 tools, 4.5 MB', body: heavyBodyOnce },
  {
    name: 'filter.tools regular expressions, sample list',
    body: () => ({ query: everyday, tools: sampleTools, filter: { tools: ['/^(github|slack):.*(e|a){1,3}/'] } }),
  },
  {
    name: 'feedback, 100 events of 2 × 100 new chars',
    path: '/v1/catalog/feedback',
    body: () => ({
      events: Array.from({ length: 100 }, (_, at) => ({
        query: [newWords(14).slice(0, 100), newWords(14).slice(0, 100)],
        toolKey: `srv:tool_${at}`,
        outcome: 'succeeded',
      })),
    }),
    charged: (body) => reportWork((body as { events: unknown[] }).events),
  },
];

console.log(
  `charged work (ms of CPU at ${WORK_PER_CPU_MS} units a ms) vs the request's measured CPU, and vs that CPU less the floor's, median of ${ROUNDS}`,
);
let floor = 0;
for (const kind of kinds) {
  const measured: number[] = [];
  const charged: number[] = [];
  for (let round = 0; round <= ROUNDS; round += 1) {
    const body = kind.body();
    lastWork = 0;
    const before = process.cpuUsage();
    const response = await app.inject({
      method: 'POST',
      url: kind.path ?? '/v1/catalog/search',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: body as Record<string, unknown> | string,
    });
    const used = process.cpuUsage(before);
    if (response.statusCode >= 300) throw new Error(`${kind.name}: ${response.statusCode} ${response.body}`);
    await new Promise((resolve) => setImmediate(resolve)); // the audit line is written
    if (round === 0) continue;
    measured.push((used.user + used.system) / 1000);
    charged.push((kind.charged?.(body) ?? lastWork) / WORK_PER_CPU_MS);
  }
  const cpu = median(measured);
  const charge = median(charged);
  if (kind === kinds[0]) floor = cpu;
  console.log(
    `${kind.name.padEnd(48)} measured ${cpu.toFixed(2).padStart(7)} ms, charged ${charge.toFixed(2).padStart(7)} ms ` +
      `(${(charge / cpu).toFixed(2)}×; ${(charge / Math.max(cpu - floor, 0.01)).toFixed(2)}× beyond the floor)`,
  );
}
await app.close();
