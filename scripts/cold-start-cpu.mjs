// The service's cold start in CPU time (all threads), which a loaded machine distorts far less than
// wall-clock: starts `node dist/src/server.js` (npm run build first), polls /healthz, and reads the
// process's user+system time from /proc at the first 200 (Linux). Median of RUNS starts.
//   node scripts/cold-start-cpu.mjs [runs]          EMBEDDINGS=on node scripts/cold-start-cpu.mjs (the embedded encoder)
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const runs = Number(process.argv[2] ?? 5);
const ticksPerSecond = 100; // USER_HZ on Linux
const freePort = () =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

async function once() {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, ['dist/src/server.js'], {
    env: {
      ...process.env,
      NODE_ENV: 'production',
      AUTH_JWT_SECRET: 'cold-start-secret-of-at-least-32-bytes!!',
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
    },
    stdio: 'ignore',
  });
  try {
    for (;;) {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), 1000);
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: controller.signal }).then(
        (r) => r.ok,
        () => false,
      );
      clearTimeout(timer);
      if (ok) break;
      if (performance.now() - started > 120_000) throw new Error('no /healthz within 120 s');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return {
      cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond,
      wallMs: performance.now() - started,
    };
  } finally {
    child.kill('SIGKILL');
  }
}

const results = [];
for (let i = 0; i < runs; i += 1) results.push(await once());
const median = (values) => values.sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];
console.log(
  `cold start to /healthz (EMBEDDINGS=${process.env.EMBEDDINGS ?? 'off'}): median ${Math.round(median(results.map((r) => r.cpuMs)))} ms CPU, ` +
    `${Math.round(median(results.map((r) => r.wallMs)))} ms wall over ${runs} runs`,
);
