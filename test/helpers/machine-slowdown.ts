// How much the machine stretches a process's work right now, measured beside a test in the same run:
// a child process asks to do 5 ms of CPU work every 50 ms (a tenth of a core) and times each piece
// from when its timer was due to when the work was done. On a quiet machine a piece takes ~5 ms
// (slowdown ~1); on a busy one it waits to be scheduled and is preempted, as the service under test
// is. Bounds on a test's latencies are scaled by it, so a busy host stretches them as it stretches
// everything, while a stall of the service's own (its event loop held for seconds) still fails them.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const PROBE = `
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const piece = () => {
  const due = performance.now() + 50;
  setTimeout(() => {
    const cpu = cpuMs();
    while (cpuMs() - cpu < 5) {}
    console.log((performance.now() - due) / (cpuMs() - cpu));
    piece();
  }, 50);
};
piece();
`;

export interface SlowdownProbe {
  /** Stops the probe; the median and the largest slowdown seen while it ran (at least 1 each). */
  stop(): { median: number; max: number };
}

/** Starts the probe; resolves once it has timed its first piece (so it covers what follows). */
export async function probeSlowdown(): Promise<SlowdownProbe> {
  const child = spawn(process.execPath, ['-e', PROBE], { stdio: ['ignore', 'pipe', 'inherit'] });
  const ratios: number[] = [];
  const lines = createInterface({ input: child.stdout! });
  await new Promise<void>((resolve) =>
    lines.on('line', (line) => {
      ratios.push(Math.max(1, Number(line)));
      resolve();
    }),
  );
  ratios.length = 0; // the first piece ran while Node was still starting
  return {
    stop() {
      child.kill('SIGKILL');
      const sorted = [...ratios].sort((a, b) => a - b);
      return { median: sorted[Math.floor(sorted.length / 2)] ?? 1, max: sorted.at(-1) ?? 1 };
    },
  };
}
