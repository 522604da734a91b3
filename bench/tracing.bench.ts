// `npm run bench -- tracing`: the cost of OpenTelemetry tracing. Throughput of the same service
// with tracing on (spans exported as OTLP/HTTP JSON to a loopback receiver in this process) and off
// (no OTEL_* set: no OpenTelemetry module loaded), each in its own child process, in alternating
// autocannon rounds. The search is a small one (50 tools, BM25 only: a server span and a lexical
// span), where a per-request overhead shows most.
import { fork, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { manyTools } from '../test/fixtures/tools.js';
import { alternatingRounds, median } from './rounds.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 3);

// The collector: counts the spans it is sent.
let spans = 0;
const receiver = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    spans += (
      Buffer.concat(chunks)
        .toString()
        .match(/"spanId"/g) ?? []
    ).length;
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

async function startService(args: string[]): Promise<{ child: ChildProcess; port: number; token: string }> {
  const child = fork(fileURLToPath(new URL('./tracing-bench-server.ts', import.meta.url)), args, {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const { port, token } = await new Promise<{ port: number; token: string }>((resolve) =>
    child.once('message', resolve),
  );
  return { child, port, token };
}
const traced = await startService([endpoint]);
const untraced = await startService([]);

const body = JSON.stringify({ query: ['send a message to a channel'], tools: manyTools(50) });
async function throughput(service: { port: number; token: string }): Promise<number> {
  const result = await autocannon({
    url: `http://127.0.0.1:${service.port}/v1/catalog/search`,
    method: 'POST',
    headers: {
      authorization: `Bearer ${service.token}`,
      'content-type': 'application/json',
      traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    },
    body,
    connections: 8,
    duration: DURATION_S,
    warmup: { connections: 8, duration: 1 },
  });
  if (result.non2xx > 0) throw new Error(`${result.non2xx} non-2xx answers`);
  return result.requests.average;
}

const { a: off, b: on } = await alternatingRounds(
  ROUNDS,
  () => throughput(untraced),
  () => throughput(traced),
);
for (const service of [traced, untraced]) {
  const exited = new Promise((resolve) => service.child.once('exit', resolve));
  service.child.disconnect();
  await exited;
}
receiver.close();

// Each round's ratio compares two measurements taken back to back, under the same load on the machine.
const ratios = on.map((value, round) => value / off[round]!);
const range = (values: number[]) => `${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)}`;
console.log(
  `tracing's own cost (50-tool BM25 searches, 8 connections, ${ROUNDS} alternating rounds of ${DURATION_S} s):`,
);
console.log('| tracing | req/s (median) | req/s (range over rounds) |\n|---|---|---|');
console.log(`| off | ${median(off).toFixed(0)} | ${range(off)} |`);
console.log(`| on (OTLP/HTTP to loopback) | ${median(on).toFixed(0)} | ${range(on)} |`);
console.log(
  `tracing on / off: ${median(ratios).toFixed(3)}× the throughput (median of the per-round ratios; ` +
    `range ${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)}; ${spans} spans received)`,
);
