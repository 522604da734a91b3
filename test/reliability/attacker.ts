// Another project's load for the stall scenarios (search-stalls.test.ts), as its own process so that
// building and sending its requests never delays the measuring process's own searches. Kinds:
// - heavy: the maximum-size search (16 sub-queries over 5,000 tools, 4.5 MB; heavy-sender.ts's body),
//   one every INTERVAL_MS whatever the answers (an open loop);
// - vocabulary: searches whose 300 tools and 4 sub-queries are words no one sent before, one after
//   another on 2 connections;
// - japanese: 16 sub-queries of 2,000 random Japanese characters over one tool, one after another on
//   2 connections.
// A closed loop waits INTERVAL_MS after a 429, as a client honouring the refusal a little early would.
// It sends in windows: from START_AT (epoch ms) for ON_MS, then nothing for OFF_MS, CYCLES times, so
// that the measuring process compares the windows with and without it, interleaved (a shared host's
// load drifts within a minute).
// Usage: node --import tsx attacker.ts URL TOKEN KIND INTERVAL_MS START_AT ON_MS OFF_MS CYCLES; prints
// the results as JSON.
import { heavyBody } from './heavy-sender.js';
import { sleep, timedSearch, type Timed } from './load.js';

const randomText = (length: number, from: number, to: number) =>
  Array.from({ length }, () => String.fromCodePoint(from + Math.floor(Math.random() * (to - from)))).join('');

/** Words of 5–9 random lowercase letters: almost surely never seen before. */
const newWords = (count: number) =>
  Array.from({ length: count }, () => randomText(5 + Math.floor(Math.random() * 5), 0x61, 0x7b)).join(' ');

const vocabularyBody = () => ({
  query: Array.from({ length: 4 }, () => newWords(12)),
  tools: Array.from({ length: 300 }, (_, at) => ({
    toolKey: `flood:${at}_${randomText(8, 0x61, 0x7b)}`,
    toolName: `${at}_${randomText(8, 0x61, 0x7b)}`,
    serverName: 'Flood',
    description: newWords(20),
  })),
});

/** Hiragana and kanji, as a Japanese request mixes them (half each). */
const japaneseBody = () => ({
  query: Array.from({ length: 16 }, () => randomText(1_000, 0x3041, 0x3097) + randomText(1_000, 0x4e00, 0x9fa0)),
  tools: [
    { toolKey: 'cal:create_event', toolName: 'create_event', serverName: 'Calendar', description: 'Create an event' },
  ],
});

/** Two connections sending one search after another until `until` (epoch ms). */
async function closedLoop(send: () => Promise<Timed>, pauseMs: number, until: number, results: Timed[]) {
  await Promise.all(
    [0, 1].map(async () => {
      while (Date.now() < until) {
        const result = await send();
        results.push(result);
        if (result.status === 429) await sleep(pauseMs);
      }
    }),
  );
}

/** One search every `intervalMs` until `until`, not waiting for the answers (an open loop). */
async function openLoop(send: () => Promise<Timed>, intervalMs: number, until: number, results: Timed[]) {
  const pending: Promise<void>[] = [];
  while (Date.now() < until) {
    pending.push(send().then((result) => void results.push(result)));
    await sleep(intervalMs);
  }
  await Promise.all(pending);
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const [url, token, kind, interval, startAt, on, off, cycles] = process.argv.slice(2) as string[];
  const heavy = heavyBody();
  const body = kind === 'heavy' ? () => heavy : kind === 'japanese' ? japaneseBody : vocabularyBody;
  const send = () => timedSearch(url!, token!, body(), 30_000);
  const results: Timed[] = [];
  for (let cycle = 0; cycle < Number(cycles); cycle += 1) {
    const from = Number(startAt) + cycle * (Number(on) + Number(off));
    await sleep(from - Date.now());
    if (kind === 'heavy') await openLoop(send, Number(interval), from + Number(on), results);
    else await closedLoop(send, Number(interval), from + Number(on), results);
  }
  process.stdout.write(`${JSON.stringify(results)}\n`);
}
